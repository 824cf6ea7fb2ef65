package datasets

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/internal/budget"
)

// TestDecompressionBombStopsAtTheCeiling: a 300 KB gzip file of 200 MB of
// a valid svmlight line stops at the memory ceiling while it is read (it
// ran out of memory with a runtime dump, also under --max-memory, because
// memory was checked only after the file was read).
func TestDecompressionBombStopsAtTheCeiling(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bomb.svm.gz")
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	chunk := bytes.Repeat([]byte("1 1:0.5 2:0.25 3:1 4:2 5:3\n"), 40000)
	for range 200 {
		z.Write(chunk)
	}
	z.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	SetMemoryCeiling(budget.Budget{Limit: 48 << 20, Source: "--max-memory"})
	defer SetMemoryCeiling(budget.Ceiling(0))
	_, err := LoadSVMLight(path, 0, false)
	var ce *CeilingError
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), "more than the ceiling of 48.0 MiB (--max-memory)") {
		t.Fatalf("got %v", err)
	}
	if ce.Read >= 200*int64(len(chunk)) {
		t.Errorf("stopped after reading all %d bytes", ce.Read)
	}
}

// TestCSVGzipReads: a gzip-compressed CSV file is decompressed like an
// svmlight file (it was read as text: "no label column … \x1f\x8b").
func TestCSVGzipReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv.gz")
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write([]byte("x1,x2,label\n1,2,0\n2,1,1\n"))
	z.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := LoadCSV(path, "label", "")
	if err != nil || tab.Data.N != 2 || tab.Data.Features != 2 || tab.Data.Y[1] != 1 {
		t.Fatalf("got %+v, %v", tab, err)
	}
}
