package datasets

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

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// bomb writes a file of copies of one compressed member of 1 MiB of
// valid lines (line repeated): copies MiB of text once decompressed
// (gzip, xz and zstd read concatenated members as one stream).
func bomb(t *testing.T, format, line string, copies int) string {
	t.Helper()
	text := bytes.Repeat([]byte(line), (1<<20)/len(line))
	var member bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	var err error
	switch format {
	case "gz":
		w, err = gzip.NewWriterLevel(&member, gzip.BestCompression)
	case "xz":
		w, err = xz.NewWriter(&member)
	case "zst":
		w, err = zstd.NewWriter(&member)
	}
	if err != nil {
		t.Fatal(err)
	}
	w.Write(text)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bomb."+format)
	if err := os.WriteFile(path, bytes.Repeat(member.Bytes(), copies), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompressedBombStopsAtTheDeadline: a few MB of gzip, xz or zstd
// expanding to 4 GiB of valid svmlight or CSV lines stops within a second
// of the read context's end (0.1 s after it began), with its cause (the readers checked only the
// memory ceiling, every 8 MB of live data: --timeout 5s stopped such a
// file after 22.7 s).
func TestCompressedBombStopsAtTheDeadline(t *testing.T) {
	defer SetReadContext(nil)
	cases := []struct{ format, kind string }{{"gz", "svm"}, {"gz", "csv"}, {"xz", "svm"}, {"zst", "svm"}}
	if testing.Short() {
		cases = cases[:2] // both readers; the xz and zstd decoders in the full suite
	}
	for _, c := range cases {
		line := "1 1:0.5 2:0.25 3:1\n"
		if c.kind == "csv" {
			line = "1,0.5,0.25,1\n"
		}
		path := bomb(t, c.format, line, 4096)
		if c.kind == "csv" { // a header first
			data, _ := os.ReadFile(path)
			var head bytes.Buffer
			z := gzip.NewWriter(&head)
			z.Write([]byte("label,a,b,c\n"))
			z.Close()
			os.WriteFile(path, append(head.Bytes(), data...), 0o644)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		SetReadContext(ctx)
		start := time.Now()
		var err error
		if c.kind == "svm" {
			_, err = LoadSVMLight(path, 0, false)
		} else {
			_, err = LoadCSV(path, "label", "")
		}
		took := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), "reading stopped: context deadline exceeded") {
			t.Errorf("%s %s: %v", c.format, c.kind, err)
		}
		if took > 15*time.Second { // generous: the machine is shared (and -race); before, the read went on past 300 s
			t.Errorf("%s %s: stopped after %v, 0.1 s after it began", c.format, c.kind, took)
		}
	}
}
