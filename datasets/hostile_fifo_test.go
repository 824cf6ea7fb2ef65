//go:build unix

package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNamedPipesAreRefused: a named pipe without a writer where a data
// file is expected (a LEAF file, one of a LEAF folder's files, an .npz archive, an .npy file in a directory, a CIFAR batch, an
// IDX file, an svmlight or CSV file) is refused as not a regular file at once, when the memory is
// declared (--dry-run) and when the data are read, instead of blocking in
// open(2).
func TestNamedPipesAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := func(parts ...string) string {
		path := filepath.Join(append([]string{dir}, parts...)...)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return path
	}
	leafDir := filepath.Join(dir, "leaf")
	os.MkdirAll(leafDir, 0o755)
	os.WriteFile(filepath.Join(leafDir, "a.json"), []byte(`{"users":["a","b"],"num_samples":[1,1],"user_data":{"a":{"x":[[1]],"y":[1]},"b":{"x":[[0]],"y":[0]}}}`), 0o644)
	cifarDir := filepath.Join(dir, "cifar")
	idxDir := filepath.Join(dir, "idx")
	os.MkdirAll(idxDir, 0o755)
	os.WriteFile(filepath.Join(idxDir, "train-labels-idx1-ubyte"), idxBytes([]int{1}, []byte{0}), 0o644)
	cases := []struct {
		name string
		raw  map[string]any
		pipe string
	}{
		{"leaf", map[string]any{"path": fifo("one.json"), "classes": 2}, filepath.Join(dir, "one.json")},
		{"leaf", map[string]any{"path": leafDir, "classes": 2}, fifo("leaf", "b.json")},
		{"npz", map[string]any{"path": fifo("d.npz"), "classes": 2}, filepath.Join(dir, "d.npz")},
		{"npz", map[string]any{"path": filepath.Dir(fifo("npy", "x.npy")), "classes": 2}, filepath.Join(dir, "npy", "x.npy")},
		{"cifar", map[string]any{"dir": cifarDir}, fifo("cifar", "data_batch_1.bin")},
		{"idx", map[string]any{"dir": idxDir}, fifo("idx", "train-images-idx3-ubyte")},
		{"svmlight", map[string]any{"path": fifo("d.svm")}, filepath.Join(dir, "d.svm")},
		{"csv", map[string]any{"path": fifo("d.csv"), "label": "y"}, filepath.Join(dir, "d.csv")},
	}
	for _, c := range cases {
		want := c.pipe + ": a named pipe, not a regular file"
		within(t, c.name+" declaring its memory", func() {
			a := mustValidate(t, c.name, c.raw)
			a.Spec().Size(a)
		})
		within(t, c.name+" reading", func() {
			if err := buildErr(t, c.name, c.raw); !strings.Contains(err.Error(), want) {
				t.Errorf("%s %v: %v, want %q", c.name, c.raw, err, want)
			}
		})
	}
}
