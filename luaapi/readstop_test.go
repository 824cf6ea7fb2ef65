package luaapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fedlab/fedlab/rundir"
)

// TestCompressedDataStopsWithTheScript: a gzip file of a few MB holding
// 4 GiB of valid svmlight lines stops within a second or two of the
// script's time limit (the reader did not look at the script's context:
// it read on for minutes; --timeout 5s stopped a 2 GiB file after 22.7 s),
// and at the memory ceiling (the time it takes to parse 64 MiB of data).
func TestCompressedDataStopsWithTheScript(t *testing.T) {
	dir := t.TempDir()
	var member bytes.Buffer
	z, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	z.Write(bytes.Repeat([]byte("1 1:0.5 2:0.25 3:1\n"), (1<<20)/19))
	z.Close()
	path := filepath.Join(dir, "bomb.svm.gz")
	if err := os.WriteFile(path, bytes.Repeat(member.Bytes(), 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "local data = fedlab.data.svmlight{ path = " + `"` + filepath.ToSlash(path) + `"` + " }\nprint('read')\n"
	for _, c := range []struct {
		name string
		opts Options
		want string
	}{
		{"a 0.5 s limit", Options{}, "script.lua:1: context deadline exceeded"},
		{"a 64 MiB ceiling", Options{MaxMemory: 64 << 20}, "memory ceiling reached"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		if c.opts.MaxMemory != 0 {
			ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
		}
		c.opts.Context = ctx
		start := time.Now()
		out, err := script(t, src, c.opts)
		took := time.Since(start)
		cancel()
		var intr *rundir.Interrupted
		if !errors.As(err, &intr) || !strings.Contains(err.Error(), c.want) || strings.Contains(out, "read") {
			t.Errorf("%s: %q, %v, want %q", c.name, out, err, c.want)
		}
		limit := stopBound
		if c.opts.MaxMemory != 0 {
			limit = 3 * stopBound // and the time to parse 64 MiB of data on a loaded machine
		}
		if took > limit {
			t.Errorf("%s: stopped after %v", c.name, took)
		}
	}
}
