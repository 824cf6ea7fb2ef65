package datasets

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fedlab/fedlab/registry"
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
// expanding to 4 GiB (1 GiB under -short) of valid svmlight or CSV lines
// stops within a second of the end of its build context (0.1 s after it
// began, 0.02 s under -short), with its cause
// (the readers checked only the memory ceiling, every 8 MB of live data:
// --timeout 5s stopped such a file after 22.7 s).
func TestCompressedBombStopsAtTheDeadline(t *testing.T) {
	cases := []struct{ format, kind string }{{"gz", "svm"}, {"gz", "csv"}, {"xz", "svm"}, {"zst", "svm"}}
	deadline, copies := 100*time.Millisecond, 4096
	if testing.Short() {
		// both readers; the xz and zstd decoders, and the 4 GiB files, in
		// the full suite (1 GiB takes seconds to read: the deadline ends it)
		cases, deadline, copies = cases[:2], 20*time.Millisecond, 1024
	}
	for _, c := range cases {
		line := "1 1:0.5 2:0.25 3:1\n"
		if c.kind == "csv" {
			line = "1,0.5,0.25,1\n"
		}
		path := bomb(t, c.format, line, copies)
		if c.kind == "csv" { // a header first
			data, _ := os.ReadFile(path)
			var head bytes.Buffer
			z := gzip.NewWriter(&head)
			z.Write([]byte("label,a,b,c\n"))
			z.Close()
			os.WriteFile(path, append(head.Bytes(), data...), 0o644)
		}
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		var err error
		limits := limitsOf(registry.BuildContext{Context: ctx}) // what the svmlight and csv factories pass
		if c.kind == "svm" {
			_, err = loadSVMLight(path, 0, false, limits)
		} else {
			_, err = loadCSV(path, "label", "", limits)
		}
		took := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), "reading stopped: context deadline exceeded") {
			t.Errorf("%s %s: %v", c.format, c.kind, err)
		}
		if took > 15*time.Second { // generous: the machine is shared (and -race); before, the read went on past 300 s
			t.Errorf("%s %s: stopped after %v, %v after it began", c.format, c.kind, took, deadline)
		}
	}
}

// lines is an endless reader of one svmlight line repeated; first is
// closed at its first read.
type lines struct {
	first chan struct{}
	once  bool
}

func (l *lines) Read(p []byte) (int, error) {
	if !l.once {
		l.once = true
		close(l.first)
	}
	const line = "1 1:0.5 2:0.25\n"
	n := 0
	for n+len(line) <= len(p) {
		n += copy(p[n:], line)
	}
	return n, nil
}

// gated is a reader of rows svmlight lines that gives the first half,
// closes started, and waits for open to be closed before it gives the
// rest.
type gated struct {
	rows          int
	given         int
	started, open chan struct{}
}

func (g *gated) Read(p []byte) (int, error) {
	if g.given == g.rows {
		return 0, io.EOF
	}
	if g.given == g.rows/2 {
		close(g.started)
		<-g.open
	}
	n := 0
	for line := "0 3:1\n"; n+len(line) <= len(p) && g.given < g.rows && (g.given != g.rows/2 || n == 0); g.given++ {
		n += copy(p[n:], line)
	}
	return n, nil
}

// TestReadersStopOnlyWithTheirOwnContext: two readers read at once in one
// process, each with the context of its own build; cancelling one's stops
// it with its cause, mid-file, while the other, paused in the middle of its
// file at that moment, reads on to the end and loses no row (a
// process-wide read context stopped both, or neither).
func TestReadersStopOnlyWithTheirOwnContext(t *testing.T) {
	ctxA, cancelA := context.WithCancelCause(context.Background())
	defer cancelA(nil)
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	a := &lines{first: make(chan struct{})}
	b := &gated{rows: 1000, started: make(chan struct{}), open: make(chan struct{})}
	errA := make(chan error, 1)
	type result struct {
		t   *Table
		err error
	}
	resB := make(chan result, 1)
	go func() {
		_, err := readSVMLight(a, "a.svm", 0, false, 1<<16, limitsOf(registry.BuildContext{Context: ctxA}))
		errA <- err
	}()
	go func() {
		tb, err := readSVMLight(b, "b.svm", 0, false, 1<<16, limitsOf(registry.BuildContext{Context: ctxB}))
		resB <- result{tb, err}
	}()
	wait := func(c <-chan struct{}, what string) {
		select {
		case <-c:
		case <-time.After(time.Minute):
			t.Fatalf("%s: not after a minute", what)
		}
	}
	wait(a.first, "reader a started")
	wait(b.started, "reader b halfway")
	cancelA(errors.New("the script's time limit"))
	select {
	case err := <-errA:
		if err == nil || !strings.HasPrefix(err.Error(), "a.svm:") || !strings.Contains(err.Error(), "reading stopped: the script's time limit") ||
			strings.Contains(err.Error(), "damaged") {
			t.Errorf("reader a: %v, want it stopped with its context's cause (and not blamed on the file)", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("reader a: not stopped a minute after its context ended")
	}
	close(b.open)
	select {
	case r := <-resB:
		if r.err != nil {
			t.Fatalf("reader b, whose context runs: %v", r.err)
		}
		if r.t.Data.N != b.rows || r.t.Data.Features != 3 {
			t.Errorf("reader b read %d rows of %d features, want %d of 3", r.t.Data.N, r.t.Data.Features, b.rows)
		}
	case <-time.After(time.Minute):
		t.Fatal("reader b: not done a minute after it was let on")
	}
	if ctxB.Err() != nil {
		t.Fatal("b's context ended")
	}
}
