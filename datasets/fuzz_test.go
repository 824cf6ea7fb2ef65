package datasets

import (
	"bytes"
	"compress/gzip"
	"runtime"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/internal/budget"
)

// FuzzReadSVMLight: any input gives a table whose shapes agree, or an
// error naming the file, never a panic or a huge allocation.
func FuzzReadSVMLight(f *testing.F) {
	for _, s := range []string{"1 1:0.5 3:1\n-1 2:1\n", "+1 qid:3 1:1 # c\n", "0 1:nan\n", "1 0:1\n",
		"1 9223372036854775807:1\n", "1 4611686018427387904:1\n", "1 99999999999:1\n", "1 300000000:1\n",
		"1 1:1e400\n", "1,2 1:1\n", "\xff\xfe 1:1\n", "1 1:1 1:2\n", "1 2:1 1:1\n", "\x1b[2J 1:1\n"} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, zeroBased bool) {
		tab, err := ReadSVMLight(bytes.NewReader(data), "f.svm", 0, zeroBased)
		cleanMessage(t, err)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.svm") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		d := tab.Data
		if len(d.Y) != d.N || len(tab.Lines) != d.N || (tab.Client != nil && len(tab.Client) != d.N) {
			t.Fatalf("shapes: N %d, labels %d, lines %d, clients %d", d.N, len(d.Y), len(tab.Lines), len(tab.Client))
		}
		if d.Sparse != nil && len(d.Sparse.Ptr) != d.N+1 {
			t.Fatalf("CSR with %d row pointers for %d rows", len(d.Sparse.Ptr), d.N)
		}
	})
}

// FuzzReadCSV: any input gives a table whose shapes agree, or an error
// with the file and line, never a panic.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{"x,label\n1,2\n", "a,b,label\n1,2,3\n4,5\n", "\ufeffx, label\n 1 , 0\n", "x,x,label\n",
		"x,label\n1,\"2\n", "x,label\n\xff\x00,1\n", "label\n1\n", "x,label\nNaN,1\n", "x,label\n1e999,1\n", "\x1b[31mx,label\n1,1\n"} {
		f.Add([]byte(s), "label", "")
	}
	f.Add([]byte("x,c,label\n1,a,0\n2,b,1\n"), "label", "c")
	f.Fuzz(func(t *testing.T, data []byte, label, client string) {
		tab, err := ReadCSV(bytes.NewReader(data), "f.csv", label, client)
		cleanMessage(t, err)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		d := tab.Data
		if len(d.Y) != d.N || len(d.X) != d.N*d.Features || len(tab.Lines) != d.N {
			t.Fatalf("shapes: N %d, features %d, X %d, Y %d", d.N, d.Features, len(d.X), len(d.Y))
		}
	})
}

// FuzzReadIDX: any input gives values matching the declared dimensions, or
// an error, never a panic; the values are read as they arrive, so a header
// declaring 2³¹ values costs no more memory than the file.
func FuzzReadIDX(f *testing.F) {
	f.Add([]byte{0, 0, 8, 1, 0, 0, 0, 3, 1, 2, 3})
	f.Add([]byte{0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 2, 9, 9, 9, 9})
	f.Add([]byte{0, 0, 8, 1, 0x7f, 0xff, 0xff, 0xff, 1})
	f.Add([]byte{0, 0, 8, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 2})
	f.Add([]byte{0, 0, 0x0d, 1, 0, 0, 0, 1, 0, 0, 0, 0})
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Add([]byte{0, 0, 8, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := ReadIDX(bytes.NewReader(data), "f.idx")
		cleanMessage(t, err)
		if err != nil {
			return
		}
		n := 1
		for _, d := range idx.Dims {
			n *= d
		}
		if len(idx.Data) != n || len(data) < 4+4*len(idx.Dims)+n {
			t.Fatalf("dims %v, %d values from %d bytes", idx.Dims, len(idx.Data), len(data))
		}
	})
}

func TestReadIDXDoesNotAllocateWhatTheHeaderDeclares(t *testing.T) {
	nine := []byte{0, 0, 8, 1, 0x7f, 0xff, 0xff, 0xff, 1} // declares 2³¹−1 values, holds one
	allocs := testing.AllocsPerRun(1, func() { ReadIDX(bytes.NewReader(nine), "nine.idx") })
	_, err := ReadIDX(bytes.NewReader(nine), "nine.idx")
	if err == nil || !strings.Contains(err.Error(), "the file ends after 1") {
		t.Errorf("error %v", err)
	}
	var m1, m2 runtimeMem
	m1.read()
	ReadIDX(bytes.NewReader(nine), "nine.idx")
	m2.read()
	if grew := m2.total - m1.total; grew > 16<<20 {
		t.Errorf("reading a 9-byte file allocated %d bytes (%g allocations)", grew, allocs)
	}
}

// runtimeMem is the total of bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

// endless is an endless stream of one byte.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	if len(p) > 0 {
		p[0] = byte(e)
	}
	for n := 1; n < len(p); n *= 2 { // doubling copies: tens of MiB are read
		copy(p[n:], p[:n])
	}
	return len(p), nil
}

// TestReadersRefuseEndlessLines: a line that never ends stops the svmlight
// and the CSV reader at the line bound with the message naming it: a bound
// of 1 MiB through the readers' limits, and (in the full suite) the real
// 64 MiB of MaxLine through the exported readers.
func TestReadersRefuseEndlessLines(t *testing.T) {
	small := readLimits{ceiling: budget.Ceiling(0), maxLine: 1 << 20}
	if _, err := readSVMLight(endless(0), "zero", 0, false, textChunk, small); err == nil || !strings.Contains(err.Error(), "a line is longer than 1 MiB") {
		t.Errorf("svmlight, 1 MiB bound: %v", err)
	}
	if _, err := readCSV(endless('x'), "xs", "label", "", textChunk, small); err == nil || !strings.Contains(err.Error(), "a line is longer than 1 MiB") {
		t.Errorf("csv, 1 MiB bound: %v", err)
	}
	if testing.Short() {
		return // MaxLine's 64 MiB, read twice, in the full suite
	}
	if _, err := ReadSVMLight(endless(0), "zero", 0, false); err == nil || !strings.Contains(err.Error(), "a line is longer than 64 MiB") {
		t.Errorf("svmlight: %v", err)
	}
	if _, err := ReadCSV(endless('x'), "xs", "label", ""); err == nil || !strings.Contains(err.Error(), "a line is longer than 64 MiB") {
		t.Errorf("csv: %v", err)
	}
}

// FuzzDecompressedSVMLight: any bytes, compressed or not, through
// Decompress and the svmlight reader under a small memory ceiling give a
// table or an error, never a panic or a runtime out-of-memory dump.
func FuzzDecompressedSVMLight(f *testing.F) {
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	z.Write(bytes.Repeat([]byte("1 1:0.5 2:0.25\n"), 10000))
	z.Close()
	f.Add(gz.Bytes())
	f.Add([]byte("BZh91AY&SY garbage"))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0})
	f.Add([]byte("1 1:0.5\r-1 2:1\r"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decompress(bytes.NewReader(b), "fuzz.svm")
		if err != nil {
			return
		}
		defer r.Close()
		readSVMLight(r, "fuzz.svm", 0, false, textChunk, fuzzCeiling)
	})
}
