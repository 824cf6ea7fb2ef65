package parquetdata

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/registry"
)

// TestParquetPathsAreDeclared: path and test, which name a file,
// directory or glob, are declared paths (registry.Param.Path), so that
// plan resolves them; no other key is.
func TestParquetPathsAreDeclared(t *testing.T) {
	s, ok := registry.Lookup(registry.Dataset, "parquet")
	if !ok {
		t.Fatal("dataset \"parquet\" not registered")
	}
	var got []string
	for _, p := range s.Params {
		if p.Path {
			got = append(got, p.Name)
		}
	}
	if want := []string{"path", "test"}; !slices.Equal(got, want) {
		t.Errorf("path parameters %q, want %q", got, want)
	}
}

// TestParquetMissingDataSuggests: a misspelled data folder is named with
// the nearest existing name.
func TestParquetMissingDataSuggests(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "femnist", "train"), 0o755)
	raw := map[string]any{"path": filepath.Join(dir, "femnist", "trains"), "label": "y", "features": "x", "classes": 2}
	want := filepath.Join(dir, "femnist", "trains") + ": no such file or directory (did you mean \"train\"?)"
	if err := buildErr(t, "parquet", raw); !strings.Contains(err.Error(), want) {
		t.Errorf("%v: %v, want %q", raw, err, want)
	}
}

// TestParquetParamsTypeIsExported: the dataset's params type is this
// package's Params, so that a Go plan names it
// (plan.Of(func(p *parquetdata.Params) { ... })): plan's
// TestEveryComponentHasAnExportedParamsType, whose binary does not link
// this package, checks the other components so.
func TestParquetParamsTypeIsExported(t *testing.T) {
	if got, want := registry.ParamsType(registry.Dataset, "parquet"), reflect.TypeFor[Params](); got != want {
		t.Errorf("params type %v, want %v", got, want)
	}
	if got := registry.GoField(registry.Dataset, "parquet", "partition"); got != "Partition" {
		t.Errorf("partition is the Go field %q, want Partition", got)
	}
}
