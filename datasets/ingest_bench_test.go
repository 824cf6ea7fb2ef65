package datasets

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// svmlightText generates rows of an svmlight file shaped like the issue's
// benchmark file (200,000 rows, d = 2²⁰, 162 MB): about 50 nonzeros per row
// with 6-digit values, labels ±1.
func svmlightText(rows int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	for range rows {
		if rng.IntN(2) == 0 {
			b.WriteString("-1")
		} else {
			b.WriteString("+1")
		}
		j := 0
		for range 50 {
			j += 1 + rng.IntN(40000)
			if j > 1<<20 {
				break
			}
			fmt.Fprintf(&b, " %d:%.6f", j, rng.Float64()*2-1)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// csvText generates a CSV file of rows × 32 features with 6-digit values.
func csvText(rows int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 2))
	var b bytes.Buffer
	b.WriteString("label")
	for j := range 32 {
		fmt.Fprintf(&b, ",x%d", j)
	}
	b.WriteByte('\n')
	for range rows {
		fmt.Fprintf(&b, "%d", rng.IntN(2))
		for range 32 {
			fmt.Fprintf(&b, ",%.6f", rng.NormFloat64())
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkReadSVMLight parses 20,000 rows (16 MB) of svmlight text; the
// MB/s column is the parsing speed.
func BenchmarkReadSVMLight(b *testing.B) {
	text := svmlightText(20000, 1)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := ReadSVMLight(bytes.NewReader(text), "bench.svm", 1<<20, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadCSV parses 50,000 rows × 32 features (15 MB) of CSV.
func BenchmarkReadCSV(b *testing.B) {
	text := csvText(50000, 1)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := ReadCSV(strings.NewReader(string(text)), "bench.csv", "label", ""); err != nil {
			b.Fatal(err)
		}
	}
}

// leafBenchFile writes a LEAF file of 40 users × 50 FEMNIST-like rows
// (784 values: four in five the background 1.0, the others k/255 in
// Python's spelling; 16 MB) and returns its path.
func leafBenchFile(b *testing.B) string {
	rng := rand.New(rand.NewPCG(1, 3))
	var t bytes.Buffer
	t.WriteString(`{"users": [`)
	for u := range 40 {
		if u > 0 {
			t.WriteString(", ")
		}
		fmt.Fprintf(&t, `"f%04d"`, u)
	}
	t.WriteString(`], "num_samples": [` + strings.TrimSuffix(strings.Repeat("50, ", 40), ", ") + `], "user_data": {`)
	for u := range 40 {
		if u > 0 {
			t.WriteString(", ")
		}
		fmt.Fprintf(&t, `"f%04d": {"x": [`, u)
		for i := range 50 {
			if i > 0 {
				t.WriteString(", ")
			}
			t.WriteByte('[')
			for j := range 784 {
				if j > 0 {
					t.WriteString(", ")
				}
				if rng.IntN(5) > 0 {
					t.WriteString("1.0")
				} else {
					t.WriteString(strconv.FormatFloat(float64(rng.IntN(255))/255, 'g', -1, 64))
				}
			}
			t.WriteByte(']')
		}
		t.WriteString(`], "y": [` + strings.TrimSuffix(strings.Repeat("3, ", 50), ", ") + "]}")
	}
	t.WriteString("}}")
	path := filepath.Join(b.TempDir(), "leaf.json")
	if err := os.WriteFile(path, t.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(t.Len()))
	return path
}

// BenchmarkReadLEAF parses a 16 MB LEAF file (users in parallel, 8-bit).
func BenchmarkReadLEAF(b *testing.B) {
	path := leafBenchFile(b)
	for b.Loop() {
		if _, err := readLEAF(path, defaultLimits()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadLEAFSerial parses it with the tests' serial float64 reader
// (leaf_serial_test.go), the simple alternative.
func BenchmarkReadLEAFSerial(b *testing.B) {
	path := leafBenchFile(b)
	for b.Loop() {
		if _, err := readLEAFSerial(path); err != nil {
			b.Fatal(err)
		}
	}
}
