package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
)

// Every parameter of a built-in dataset that names a file, directory or
// glob is declared a path (registry.Param.Path), so that plan resolves it;
// none other is.
func TestDatasetPathsAreDeclared(t *testing.T) {
	want := []string{"cifar.dir", "csv.path", "fashion_mnist.dir", "idx.dir", "idx.images", "idx.labels", "idx.test_images", "idx.test_labels",
		"leaf.path", "leaf.test", "npz.path", "svmlight.path"}
	var got []string
	for _, s := range registry.Specs(registry.Dataset) {
		for _, p := range s.Params {
			if p.Path {
				got = append(got, s.Name+"."+p.Name)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("path parameters %q, want %q", got, want)
	}
}

// A LEAF test split written relative in a script resolves against the
// script's directory like its training split (it is declared a path, not
// recognized by its name).
func TestLEAFTestSplitResolvesAgainstTheScript(t *testing.T) {
	script := t.TempDir()
	tb, _ := byteTable(20, 3, 2, 4)
	for _, d := range []string{"train", "test"} {
		dir := filepath.Join(script, d)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeLEAF(t, dir, tb, map[string][]string{"a.json": {"w0", "w1", "w2", "w3"}})
	}
	b := plan.NewBuilder()
	b.Paths = &plan.InputPaths{WorkDir: t.TempDir()}
	f, err := b.Dataset(plan.Component{Kind: registry.Dataset, Name: "leaf", Dir: script,
		Params: map[string]any{"path": "train", "test": "test", "classes": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Pooled(true).N; f.Clients() != 4 || n != 20 {
		t.Errorf("%d clients and %d test samples, want 4 and 20", f.Clients(), n)
	}
}
