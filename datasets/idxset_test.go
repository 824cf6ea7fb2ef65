package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeIDXTable writes the table's pixels and labels as IDX files (images
// n × rows × cols, labels n), the images gzipped when gz is set.
func writeIDXTable(t *testing.T, dir, prefix string, pix [][]byte, y []int, rows, cols int, gz bool) (string, string) {
	t.Helper()
	var flat, lab []byte
	for i, p := range pix {
		flat = append(flat, p...)
		lab = append(lab, byte(y[i]))
	}
	images := filepath.Join(dir, prefix+"train-images-idx3-ubyte")
	labels := filepath.Join(dir, prefix+"train-labels-idx1-ubyte")
	if gz {
		images += ".gz"
		writeGz(t, images, idxBytes([]int{len(pix), rows, cols}, flat))
	} else if err := os.WriteFile(images, idxBytes([]int{len(pix), rows, cols}, flat), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(labels, idxBytes([]int{len(pix)}, lab), 0o644); err != nil {
		t.Fatal(err)
	}
	return images, labels
}

// TestIDXEqualsCSV: IDX files give, value for value, the dataset the same
// pixels (as b/255) and labels give written as CSV, for every partition.
func TestIDXEqualsCSV(t *testing.T) {
	tb, pix := byteTable(30, 6, 4, 0)
	dir := t.TempDir()
	writeIDXTable(t, dir, "", pix, tb.Y, 2, 3, true)
	for _, raw := range partitionCases {
		args := map[string]any{"dir": dir}
		for k, v := range raw {
			args[k] = v
		}
		sameFederated(t, build(t, "idx", args), tb.CSVTwin(t, raw))
	}
}

// TestIDXTranspose: EMNIST stores each image transposed; transpose = true
// turns the stored 3×2 image (columns first) back into its 2×3 rows.
func TestIDXTranspose(t *testing.T) {
	dir := t.TempDir()
	stored := [][]byte{{1, 4, 2, 5, 3, 6}, {10, 40, 20, 50, 30, 60}} // 3×2 stored = transpose of rows {1 2 3} {4 5 6}
	images, labels := writeIDXTable(t, dir, "emnist-digits-", stored, []int{0, 1}, 3, 2, false)
	f := build(t, "idx", map[string]any{"images": images, "labels": labels, "transpose": true, "clients": 2, "classes": 2, "partition": "shards", "shards_per_client": 1})
	want := map[float64][]float64{0: {1, 2, 3, 4, 5, 6}, 1: {10, 20, 30, 40, 50, 60}}
	for _, d := range f.Train {
		for j, v := range d.Row(0) {
			if v != want[d.Y[0]][j]/255 {
				t.Fatalf("label %g: features %v, want %v/255", d.Y[0], d.Row(0), want[d.Y[0]])
			}
		}
	}
	g := build(t, "idx", map[string]any{"dir": dir, "prefix": "emnist-digits-", "clients": 2, "classes": 2, "partition": "shards", "shards_per_client": 1})
	if g.Train[0].Row(0)[1] != 4.0/255 && g.Train[0].Row(0)[1] != 40.0/255 {
		t.Fatalf("without transpose the stored order stays: %v", g.Train[0].Row(0))
	}
}

func TestIDXErrors(t *testing.T) {
	dir := t.TempDir()
	tb, pix := byteTable(12, 4, 3, 0)
	images, labels := writeIDXTable(t, dir, "", pix, tb.Y, 2, 2, false)
	for _, c := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{}, "idx: give dir (a directory of IDX files) or images and labels"},
		{map[string]any{"dir": dir, "images": images}, "give dir (and prefix) or the file paths"},
		{map[string]any{"dir": dir, "prefix": "x-"}, "no training images in " + dir + " (looked for " + filepath.Join(dir, "x-train-images-idx3-ubyte")},
		{map[string]any{"images": images, "labels": labels, "classes": 2}, labels + ": image 2: label 2 is not a class in 0..1 (classes = 2)"},
		{map[string]any{"images": images, "labels": labels, "classes": 3, "partition": "natural"}, "partition = \"natural\" needs the writer of each row: IDX files name no writers"},
		{map[string]any{"images": images, "labels": labels, "classes": 3, "test_samples": 2}, "test_samples = 2, but the data have no test split"},
		{map[string]any{"images": images, "labels": labels, "classes": 3, "transpose": true, "train_samples": 13}, "train_samples = 13, but the data have 12 samples"},
	} {
		if err := buildErr(t, "idx", c.raw); !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.raw, err, c.want)
		}
	}
	os.WriteFile(labels, idxBytes([]int{11}, make([]byte, 11)), 0o644)
	if err := buildErr(t, "idx", map[string]any{"dir": dir, "classes": 3}); !strings.Contains(err.Error(), images+": 12 images but 11 labels in "+labels) {
		t.Errorf("label count: %v", err)
	}
	os.WriteFile(labels, idxBytes([]int{12}, make([]byte, 12)), 0o644)
	os.WriteFile(images, idxBytes([]int{12, 2, 2}, make([]byte, 47)), 0o644)
	if err := buildErr(t, "idx", map[string]any{"dir": dir, "classes": 3}); !strings.Contains(err.Error(), images+": expected 48 values for dimensions [12 2 2]: the file ends after 47") {
		t.Errorf("truncated: %v", err)
	}
}

// TestIDXDeclaresItsMemory: the size comes from the headers, before the
// data are read: the samples in 8-bit storage (a byte per pixel, a float64
// label) plus the bytes read.
func TestIDXDeclaresItsMemory(t *testing.T) {
	dir := t.TempDir()
	tb, pix := byteTable(30, 6, 4, 0)
	writeIDXTable(t, dir, "", pix, tb.Y, 2, 3, true)
	a := mustValidate(t, "idx", map[string]any{"dir": dir, "classes": 4})
	got, what, ok := a.Spec().Size(a)
	if want := uint64(30*6 + 30*8 + 30*6 + 30); !ok || got != want || what != "train-images-idx3-ubyte.gz = 30×6 bytes" {
		t.Errorf("declared %d (%q), want %d", got, what, want)
	}
}
