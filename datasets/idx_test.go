package datasets

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idxBytes encodes an unsigned-byte IDX file.
func idxBytes(dims []int, data []byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, 0x08, byte(len(dims))})
	for _, d := range dims {
		_ = binary.Write(&b, binary.BigEndian, uint32(d))
	}
	b.Write(data)
	return b.Bytes()
}

func writeGz(t *testing.T, path string, content []byte) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(content); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fmnistFixture writes a small Fashion-MNIST look-alike (3×2 images) into a
// temporary directory: n training images with labels i mod 10, whose pixels
// encode the image index (pixel 0 = i, pixel 1 = 255), and nTest test images.
func fmnistFixture(t *testing.T, n, nTest int) string {
	t.Helper()
	dir := t.TempDir()
	set := func(imgs, lbls string, n int) {
		pix := make([]byte, n*6)
		lab := make([]byte, n)
		for i := range n {
			pix[i*6] = byte(i)
			pix[i*6+1] = 255
			lab[i] = byte(i % 10)
		}
		writeGz(t, filepath.Join(dir, imgs), idxBytes([]int{n, 3, 2}, pix))
		writeGz(t, filepath.Join(dir, lbls), idxBytes([]int{n}, lab))
	}
	set(fashionMNISTFiles[0], fashionMNISTFiles[1], n)
	set(fashionMNISTFiles[2], fashionMNISTFiles[3], nTest)
	return dir
}

func TestReadIDX(t *testing.T) {
	data := []byte{1, 2, 3, 4, 5, 6}
	got, err := ReadIDX(bytes.NewReader(idxBytes([]int{2, 3}, data)), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Dims) != 2 || got.Dims[0] != 2 || got.Dims[1] != 3 || !bytes.Equal(got.Data, data) {
		t.Fatalf("got %+v", got)
	}
	for _, tc := range []struct {
		raw  []byte
		want string
	}{
		{[]byte{1, 0, 8, 1}, "not an IDX file"},
		{[]byte{0, 0, 0x0d, 1}, "not supported"},
		{idxBytes([]int{2, 3}, data[:5]), "expected 6 values"},
		{[]byte{0, 0}, "header"},
	} {
		if _, err := ReadIDX(bytes.NewReader(tc.raw), "bad.idx"); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.idx") {
			t.Errorf("% x: error %v, want %q", tc.raw, err, tc.want)
		}
	}
}

func TestFashionMNISTFixture(t *testing.T) {
	dir := fmnistFixture(t, 200, 30)
	f := build(t, "fashion_mnist", map[string]any{"dir": dir, "clients": 4})
	if f.Features != 6 || f.Classes != 10 || f.Clients() != 4 || f.Samples() != 200 {
		t.Fatalf("features %d classes %d clients %d samples %d", f.Features, f.Classes, f.Clients(), f.Samples())
	}
	seen := map[float64]bool{}
	test := 0
	for m, d := range f.Train {
		if d.N != 50 || f.Test[m].N < 7 {
			t.Errorf("client %d: %d train, %d test", m, d.N, f.Test[m].N)
		}
		test += f.Test[m].N
		for i := range d.N {
			x := d.Row(i)
			img := x[0] * 255
			if x[1] != 1 || x[2] != 0 || d.Y[i] != float64(int(img+0.5)%10) || seen[img] {
				t.Fatalf("client %d row %d: %v label %g", m, i, x, d.Y[i])
			}
			seen[img] = true
		}
	}
	if test != 30 {
		t.Errorf("%d test images, want 30", test)
	}
	sub := build(t, "fashion_mnist", map[string]any{"dir": dir, "clients": 2, "train_samples": 40, "test_samples": 10})
	if sub.Samples() != 40 || sub.Test[0].N+sub.Test[1].N != 10 {
		t.Errorf("subset: %d train, %d+%d test", sub.Samples(), sub.Test[0].N, sub.Test[1].N)
	}
	again := build(t, "fashion_mnist", map[string]any{"dir": dir, "clients": 2, "train_samples": 40, "test_samples": 10})
	for m := range 2 {
		if !sub.Train[m].Is8Bit() || !bytes.Equal(sub.Train[m].X8, again.Train[m].X8) {
			t.Fatal("same seed, different data")
		}
	}
}

func f64bytes(v []float64) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

// The dominant partition with 10 clients and ρ = 0.8 gives client i 80% of
// class i and an even share of the remaining 20% of every other class.
func TestFashionMNISTDominant(t *testing.T) {
	dir := fmnistFixture(t, 900, 20) // 90 images per class
	f := build(t, "fashion_mnist", map[string]any{"dir": dir, "partition": "dominant", "dominant": 0.8})
	for m, d := range f.Train {
		count := make([]int, 10)
		for _, y := range d.Y {
			count[int(y)]++
		}
		for c, k := range count {
			want := 2 // (90 − 72)/9
			if c == m {
				want = 72
			}
			if k != want {
				t.Fatalf("client %d holds %d of class %d, want %d (counts %v)", m, k, c, want, count)
			}
		}
	}
	dir2 := fmnistFixture(t, 200, 20)
	d := build(t, "fashion_mnist", map[string]any{"dir": dir2, "partition": "dirichlet", "alpha": 0.1, "clients": 3})
	if d.Samples() != 200 {
		t.Fatalf("dirichlet: %d samples", d.Samples())
	}
}

func TestPartitionDominantFewerClients(t *testing.T) {
	labels := make([]int, 100)
	for i := range labels {
		labels[i] = i % 10
	}
	parts, err := PartitionDominant(labels, 10, 3, 0.5, newRNG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for m, p := range parts {
		count := make([]int, 10)
		for _, i := range p {
			count[labels[i]]++
		}
		for c, k := range count {
			switch {
			case c == m && k != 5: // half of its dominant class
				t.Errorf("client %d holds %d of its dominant class", m, k)
			case c < 3 && c != m && k != 2 && k != 3: // a share of the other half
				t.Errorf("client %d holds %d of class %d", m, k, c)
			case c >= 3 && k != 3 && k != 4: // classes without a dominant client: dealt evenly
				t.Errorf("client %d holds %d of ownerless class %d", m, k, c)
			}
		}
		total += len(p)
	}
	if total != 100 {
		t.Fatalf("%d samples dealt, want 100", total)
	}
}

func TestFashionMNISTErrors(t *testing.T) {
	empty := t.TempDir()
	err := buildErr(t, "fashion_mnist", map[string]any{"dir": empty})
	for _, want := range []string{filepath.Join(empty, "train-images-idx3-ubyte.gz"), "apt-get install dataset-fashion-mnist"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing files: %v (want %q)", err, want)
		}
	}
	dir := fmnistFixture(t, 20, 5)
	if err := buildErr(t, "fashion_mnist", map[string]any{"dir": dir, "train_samples": 21}); !strings.Contains(err.Error(), "train_samples = 21") {
		t.Errorf("oversized subset: %v", err)
	}
	writeGz(t, filepath.Join(dir, fashionMNISTFiles[1]), idxBytes([]int{19}, make([]byte, 19)))
	if err := buildErr(t, "fashion_mnist", map[string]any{"dir": dir}); !strings.Contains(err.Error(), "20 images but 19 labels") {
		t.Errorf("label count: %v", err)
	}
	writeGz(t, filepath.Join(dir, fashionMNISTFiles[1]), idxBytes([]int{20}, bytes.Repeat([]byte{10}, 20)))
	if err := buildErr(t, "fashion_mnist", map[string]any{"dir": dir}); !strings.Contains(err.Error(), "not a class") {
		t.Errorf("bad label: %v", err)
	}
}
