package datasets

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// npyFile is an .npy file (format version 1) of the given dtype and shape
// holding data: the header NumPy's format.write_array writes, padded to
// a multiple of 64 bytes.
func npyFile(descr string, shape []int, data []byte) []byte {
	dims := ""
	for _, d := range shape {
		dims += fmt.Sprintf("%d, ", d)
	}
	if len(shape) > 1 {
		dims = strings.TrimSuffix(dims, ", ")
	}
	head := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims)
	pad := 64 - (10+len(head)+1)%64
	head += strings.Repeat(" ", pad%64) + "\n"
	var b bytes.Buffer
	b.Grow(12 + len(head) + len(data))
	b.WriteString("\x93NUMPY\x01\x00")
	b.WriteByte(byte(len(head)))
	b.WriteByte(byte(len(head) >> 8))
	b.WriteString(head)
	b.Write(data)
	return b.Bytes()
}

// writeZip writes the members (name → bytes, deflated) as a zip archive.
func writeZip(t *testing.T, path string, members map[string][]byte) {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, name := range []string{"x.npy", "y.npy", "c.npy", "s.npy"} {
		data, ok := members[name]
		if !ok {
			continue
		}
		f, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		f.Write(data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNPZHostileMembers: a labels or writers member declaring more values
// than x has rows (16 MB of zeros deflated to kilobytes) is refused on
// its header, before it is expanded, and the memory declaration counts
// it; a string array is refused for its dtype, whatever its size.
func TestNPZHostileMembers(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "bomb.npz")
	const huge = 2_000_000
	x := npyFile("|u1", []int{4, 2}, make([]byte, 8))
	y := npyFile("<i8", []int{4}, make([]byte, 32))
	zeros := npyFile("<i8", []int{huge}, make([]byte, 8*huge)) // made once: 16 MB
	writeZip(t, archive, map[string][]byte{"x.npy": x, "y.npy": zeros, "c.npy": zeros, "s.npy": npyFile("<U3", []int{2413}, nil)})
	for _, c := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{}, archive + ":y: labels of shape [2000000], want (4,) like the 4 rows of " + archive + ":x"},
		{map[string]any{"y": "s"}, archive + ":s: dtype \"<U3\" is not numeric: fedlab reads integer and floating-point arrays"},
	} {
		args := map[string]any{"path": archive, "classes": 2}
		for k, v := range c.raw {
			args[k] = v
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := buildErr(t, "npz", args)
		runtime.ReadMemStats(&after)
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.raw, err, c.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
			t.Errorf("%v: %d bytes allocated: the member was expanded", c.raw, grew)
		}
	}
	writeZip(t, archive, map[string][]byte{"x.npy": x, "y.npy": y, "c.npy": zeros})
	err := buildErr(t, "npz", map[string]any{"path": archive, "classes": 2, "client": "c", "partition": "natural"})
	if want := archive + ":c: writers of shape [2000000], want (4,) like the 4 rows of " + archive + ":x"; !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
	a := mustValidate(t, "npz", map[string]any{"path": archive, "classes": 2, "client": "c", "partition": "natural"})
	// x read (8 bytes) and kept (4 × (2 + 8)); y and c as declared (8 bytes each) and as float64s
	if got, _, _ := a.Spec().Size(a); got != 8+4*(2+8)+4*16+huge*16 {
		t.Errorf("declared %d, want %d", got, 8+4*(2+8)+4*16+huge*16)
	}
}

// TestNPZLayout: a four-dimensional x is refused until layout names where
// its channels are; channels_last images (n×h×w×c) give the dataset of
// the same images stored channels first (n×c×h×w), R, G, B planes.
func TestNPZLayout(t *testing.T) {
	const n, h, w, c = 6, 2, 3, 3
	last, first := make([]byte, n*h*w*c), make([]byte, n*h*w*c)
	for k := range n {
		for y := range h {
			for x := range w {
				for ch := range c {
					v := byte(k*h*w*c + (y*w+x)*c + ch)
					last[((k*h+y)*w+x)*c+ch] = v
					first[((k*c+ch)*h+y)*w+x] = v
				}
			}
		}
	}
	labels := npyFile("<i8", []int{n}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})
	dir := t.TempDir()
	pLast, pFirst := filepath.Join(dir, "last.npz"), filepath.Join(dir, "first.npz")
	writeZip(t, pLast, map[string][]byte{"x.npy": npyFile("|u1", []int{n, h, w, c}, last), "y.npy": labels})
	writeZip(t, pFirst, map[string][]byte{"x.npy": npyFile("|u1", []int{n, c, h, w}, first), "y.npy": labels})
	args := map[string]any{"path": pLast, "classes": 2, "clients": 2}
	err := buildErr(t, "npz", args)
	if want := pLast + ":x: shape [6 2 3 3] has four dimensions: say where the images' channels are, layout = \"channels_last\""; !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
	args["layout"] = "channels_lats"
	if err := buildErr(t, "npz", args); !strings.Contains(err.Error(), `layout = "channels_lats" (did you mean "channels_last"?)`) {
		t.Errorf("%v", err)
	}
	args["layout"] = "channels_last"
	got := build(t, "npz", args)
	want := build(t, "npz", map[string]any{"path": pFirst, "classes": 2, "clients": 2, "layout": "channels_first"})
	sameFederated(t, got, want) // last != first: a flat reading of last differs
}
