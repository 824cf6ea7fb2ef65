package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio/npy"
	"codeberg.org/sbinet/npyio/npz"

	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/registry"
)

// fuzzCeiling is the memory ceiling of the fuzzed readers.
var fuzzCeiling = readLimits{ceiling: budget.Budget{Limit: 256 << 20, Source: "the fuzz test"}}

// writeFuzzFile writes b to a fresh file name in dir.
func writeFuzzFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// FuzzReadCIFAR: any bytes as a CIFAR-10 or CIFAR-100 batch give a
// dataset whose records match the file size, or an error naming the
// file, never a panic.
func FuzzReadCIFAR(f *testing.F) {
	rec := append([]byte{3}, bytes.Repeat([]byte{7}, CIFARPixels)...)
	f.Add(bytes.Repeat(rec, 3), false)
	f.Add(append(bytes.Repeat(rec, 2), 1, 2), false)
	f.Add(append([]byte{4}, bytes.Repeat(rec, 2)...), true)
	f.Add(append(bytes.Repeat(rec, 2), append([]byte{12}, rec[1:]...)...), false)
	f.Fuzz(func(t *testing.T, b []byte, hundred bool) {
		dir := t.TempDir()
		p := cifarParams{Dir: dir, Classes: 10, BenchSplit: defaultBenchSplit}
		name := "data_batch_1.bin"
		if hundred {
			p.Classes, name = 100, "train.bin"
		}
		path := writeFuzzFile(t, dir, name, b)
		p.Clients = 2
		fed, err := loadCIFAR(registry.BuildContext{}, p)
		cleanMessage(t, err)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if n := len(b) / (p.labelBytes() + CIFARPixels); fed.Samples() != n || len(b)%(p.labelBytes()+CIFARPixels) != 0 {
			t.Fatalf("%s: %d bytes gave %d samples", path, len(b), fed.Samples())
		}
	})
}

// FuzzReadNPY: any bytes as an .npy file, or as an .npz archive, give an
// array whose values match its shape, or an error naming the file, never
// a panic or an allocation beyond the file's size.
func FuzzReadNPY(f *testing.F) {
	var b bytes.Buffer
	npy.Write(&b, [][]uint8{{1, 2, 3}, {4, 5, 6}})
	f.Add(b.Bytes(), false)
	b.Reset()
	npy.Write(&b, []float32{1.5, 2, -3})
	f.Add(b.Bytes(), false)
	f.Add(b.Bytes()[:b.Len()-2], false)
	b.Reset()
	w := npz.NewWriter(&b)
	w.Write("x", []int64{1, 2, 3})
	w.Close()
	f.Add(b.Bytes(), true)
	f.Add([]byte("\x93NUMPY\x01\x00\x10\x00{'descr': '<f8'}"), false)
	f.Add(npyFile("<U3", []int{2413}, nil), false)
	f.Add(npyFile("|u1", []int{2, 2, 2, 3}, make([]byte, 24)), false)
	f.Add([]byte("\x93NUMPY\x01\x00\x46\x00{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, zipped bool) {
		dir := t.TempDir()
		path := dir
		if zipped {
			path = writeFuzzFile(t, dir, "a.npz", data)
		} else {
			writeFuzzFile(t, dir, "x.npy", data)
		}
		src, err := openNPY(path, fuzzCeiling)
		if err != nil {
			cleanMessage(t, err)
			return
		}
		defer src.Close()
		for _, keep := range []bool{true, false} {
			a, err := src.read("x", keep)
			cleanMessage(t, err)
			if err != nil {
				if !strings.Contains(err.Error(), dir) {
					t.Fatalf("error does not name the file: %v", err)
				}
				continue
			}
			n := 1
			for _, d := range a.shape {
				n *= d
			}
			if got := len(a.u8) + len(a.f); got != n {
				t.Fatalf("shape %v but %d values", a.shape, got)
			}
		}
	})
}

// FuzzReadLEAF: any bytes as a LEAF JSON file give users whose rows
// match their labels, or an error naming the file, never a panic; the
// head reader used for the memory declaration agrees with the reader.
func FuzzReadLEAF(f *testing.F) {
	f.Add([]byte(`{"users":["a","b"],"num_samples":[1,2],"user_data":{"a":{"x":[[1,2]],"y":[1]},"b":{"x":[[0,1],[2,3]],"y":[0,1]}}}`))
	f.Add([]byte(`{"users":["a"],"num_samples":[1],"user_data":{"a":{"x":[[1]],"y":[1,2]}}}`))
	f.Add([]byte(`{"users":["a"],"user_data":{"a":{"x":["txt"],"y":[1]}}}`))
	f.Add([]byte(`{"user_data":{"a":{"x":[[1]],"y":[1]}},"users":["a"],"num_samples":[1]}`))
	f.Add([]byte(`{"users":["a","a"],"num_samples":[1,1],"user_data":{"a":{"x":[[1]],"y":[1]}}}`))
	f.Add([]byte(`{"users":["a"],"num_samples":[1],"user_data":{"a":{"x":[[1,null]],"y":[null]}}}`))
	f.Add([]byte(`{"users":["a"],"num_samples":[1],"user_data":{"a":{"x":[[1]],"y":[1]}}}{"users":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeFuzzFile(t, t.TempDir(), "f.json", data)
		s, err := readLEAF(path, fuzzCeiling)
		cleanMessage(t, err)
		n, width, _, ok := leafHead(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		rows := 0
		for _, u := range s.users {
			if u.start != rows {
				t.Fatalf("user %q starts at row %d after %d rows", u.id, u.start, rows)
			}
			rows += u.n
		}
		if len(s.y) != rows || len(s.x)+len(s.pix) != rows*max(s.width, 0) || (s.x != nil && s.pix != nil) {
			t.Fatalf("%d rows of %d features: %d values and %d bytes, %d labels", rows, s.width, len(s.x), len(s.pix), len(s.y))
		}
		if ok && (n != rows || (rows > 0 && width != s.width)) {
			t.Fatalf("head: %d samples of %d features, reader: %d of %d", n, width, rows, s.width)
		}
	})
}

// FuzzParallelLEAF: any bytes as a LEAF file read with one goroutine and
// with three give the same error, or the same users and values bit for
// bit; when the serial reader of commit 71c4e80 (float64 storage) reads
// them too, they are its users and values.
func FuzzParallelLEAF(f *testing.F) {
	f.Add([]byte(`{"users":["a","b"],"num_samples":[1,2],"user_data":{"a":{"x":[[0.00392156862745098,1]],"y":[1]},"b":{"x":[[0,1],[2,3]],"y":[0,1]}}}`))
	f.Add([]byte(`{"users":["a","b","c"],"user_data":{"a":{"x":[[1,0]],"y":[1]},"b":{"x":[[0.5,1]],"y":[0]},"c":{"x":[[255,-0]],"y":[1]}}}`))
	f.Add([]byte(`{"users":["b","a"],"user_data":{"a":{"x":[[1e0]],"y":[1]},"b":{"x":[[7],[1,2]],"y":[0,1]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeFuzzFile(t, t.TempDir(), "f.json", data)
		one, err1 := readLEAFWith(path, 1, fuzzCeiling)
		three, err3 := readLEAFWith(path, 3, fuzzCeiling)
		if (err1 == nil) != (err3 == nil) || (err1 != nil && err1.Error() != err3.Error()) {
			t.Fatalf("one goroutine: %v; three: %v", err1, err3)
		}
		if err1 != nil {
			return
		}
		oracle := &leafSerial{width: one.width, users: one.users, x: leafValues(one), y: one.y}
		sameLEAF(t, "three goroutines", three, oracle)
		if old, err := readLEAFSerial(path); err == nil {
			sameLEAF(t, "serial", one, old)
		}
	})
}
