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
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
)

// TestDecompressionBombStopsAtTheCeiling: a 300 KB gzip file of 200 MB of
// a valid svmlight line stops at the memory ceiling while it is read (it
// ran out of memory with a runtime dump, also under --max-memory, because
// memory was checked only after the file was read).
func TestDecompressionBombStopsAtTheCeiling(t *testing.T) {
	path, size := decompressionBomb(t)
	limits := readLimits{ceiling: budget.Budget{Limit: 24 << 20, Source: "--max-memory"}}
	if testing.Short() {
		limits.checkEvery = 1 << 20 // a check every MiB of text: it stops after a few, not after 8 (readCheckEvery)
	}
	_, err := loadSVMLight(path, 0, false, limits)
	var ce *CeilingError
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), "more than the ceiling of 24.0 MiB (--max-memory)") {
		t.Fatalf("got %v", err)
	}
	if ce.Read >= size {
		t.Errorf("stopped after reading all %d bytes", ce.Read)
	}
}

// decompressionBomb writes a gzip file of a few hundred KB holding 200 MB of a valid
// svmlight line and returns its path and its decompressed size.
func decompressionBomb(t *testing.T) (string, int64) {
	path := filepath.Join(t.TempDir(), "bomb.svm.gz")
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	chunk := bytes.Repeat([]byte("1 1:0.5 2:0.25 3:1 4:2 5:3\n"), 40000)
	z.Write(chunk)
	z.Close()
	// 200 gzip members of one chunk each: one stream to a reader, and
	// compressed once instead of 200 times.
	if err := os.WriteFile(path, bytes.Repeat(buf.Bytes(), 200), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, 200 * int64(len(chunk))
}

// TestThePlansCeilingReachesTheReader: the svmlight dataset built by a
// plan whose limits hold a 24 MiB ceiling (fedlab run --max-memory 24MiB)
// stops reading there; the ceiling travels with the plan
// (plan.Limits → registry.Args.WithContext → the factory's BuildContext),
// not through a variable of this package.
func TestThePlansCeilingReachesTheReader(t *testing.T) {
	path, size := decompressionBomb(t)
	b := plan.NewBuilder()
	b.Limits = plan.NewLimits(24<<20, 1)
	_, err := b.Dataset(plan.Component{Kind: registry.Dataset, Name: "svmlight", Params: map[string]any{"path": path}})
	var ce *CeilingError
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), `dataset "svmlight": `+path+":") || !strings.Contains(err.Error(), "more than the ceiling of 24.0 MiB (--max-memory)") {
		t.Fatalf("got %v", err)
	}
	if ce.Read >= size {
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
