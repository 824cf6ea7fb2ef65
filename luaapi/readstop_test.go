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
// At the ceiling, either the script's memory guard or the reader's own
// check stops the read first, depending on the machine's load; the test
// asserts what the user is told either way: the script line that reads
// the data, the ceiling, and the flag that raises it.
func TestCompressedDataStopsWithTheScript(t *testing.T) {
	dir := t.TempDir()
	copies := 4096
	if testing.Short() {
		copies = 1024 // 1 GiB: seconds to read, past the limit and the ceiling
	}
	var member bytes.Buffer
	z, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	z.Write(bytes.Repeat([]byte("1 1:0.5 2:0.25 3:1\n"), (1<<20)/19))
	z.Close()
	path := filepath.Join(dir, "bomb.svm.gz")
	if err := os.WriteFile(path, bytes.Repeat(member.Bytes(), copies), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "local data = fedlab.data.svmlight{ path = " + `"` + filepath.ToSlash(path) + `"` + " }\nprint('read')\n"

	t.Run("a time limit", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testLimit(250*time.Millisecond))
		defer cancel()
		start := time.Now()
		out, err := script(t, src, Options{Context: ctx})
		var intr *rundir.Interrupted
		if !errors.As(err, &intr) || !strings.Contains(err.Error(), "script.lua:1: context deadline exceeded") || strings.Contains(out, "read") {
			t.Errorf("%q, %v, want an interruption at script.lua:1 by the deadline", out, err)
		}
		if took := time.Since(start); took > stopBound {
			t.Errorf("stopped after %v", took)
		}
	})

	t.Run("a 64 MiB ceiling", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		out, err := script(t, src, Options{Context: ctx, MaxMemory: 64 << 20}) // the runaway bound (96 MiB) leaves room for the text parsed when it stops
		if err == nil || strings.Contains(out, "read") {
			t.Fatalf("%q, %v: the read went on past the ceiling", out, err)
		}
		for _, want := range []string{"script.lua:1: ", "more than the ceiling of 64.0 MiB", "--max-memory"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the message lacks %q:\n%v", want, err)
			}
		}
		if took := time.Since(start); took > 3*stopBound { // and the time to parse 64 MiB of data on a loaded machine
			t.Errorf("stopped after %v", took)
		}
	})
}
