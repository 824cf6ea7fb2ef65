//go:build unix

package parquetdata

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestParquetNamedPipeIsRefused: a named pipe without a writer where a
// Parquet file is expected is refused as not a regular file at once, when
// the memory is declared (--dry-run) and when the data are read, instead
// of blocking in open(2) (the Parquet case of datasets'
// TestNamedPipesAreRefused).
func TestParquetNamedPipeIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.parquet")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	raw := map[string]any{"path": path, "label": "y", "features": "x", "classes": 2}
	want := path + ": a named pipe, not a regular file"
	within(t, "declaring its memory", func() {
		a := mustValidate(t, "parquet", raw)
		a.Spec().Size(a)
	})
	within(t, "reading", func() {
		if err := buildErr(t, "parquet", raw); !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", raw, err, want)
		}
	})
}
