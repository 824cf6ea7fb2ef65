package datasets

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// writeCIFAR writes the rows as CIFAR binary records into files of per
// records each: a label byte (CIFAR-10) or a coarse (label mod 20) and a
// fine label byte (CIFAR-100), then the pixels.
func writeCIFAR(t *testing.T, dir string, names []string, per int, pix [][]byte, y []int, hundred bool) {
	t.Helper()
	for f, name := range names {
		var b []byte
		for i := f * per; i < min((f+1)*per, len(pix)); i++ {
			if hundred {
				b = append(b, byte(y[i]%20))
			}
			b = append(b, byte(y[i]))
			b = append(b, pix[i]...)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCIFAREqualsCSV: CIFAR-10 batches (read in batch-number order) and
// CIFAR-100 files give, value for value, the dataset of the same pixels
// and labels written as CSV; the test batch is dealt to the clients.
func TestCIFAREqualsCSV(t *testing.T) {
	tb, pix := byteTable(30, CIFARPixels, 4, 0)
	csvPath := filepath.Join(t.TempDir(), "twin.csv")
	tb.WriteCSV(t, csvPath) // once: csvTwin writes its 92,000 values at each call
	twinOf := func(raw map[string]any) *core.Federated {
		args := map[string]any{"path": csvPath}
		maps.Copy(args, raw)
		return build(t, "csv", args)
	}
	dir := t.TempDir()
	writeCIFAR(t, dir, []string{"data_batch_1.bin", "data_batch_2.bin", "data_batch_10.bin"}, 10, pix, tb.Y, false)
	for _, raw := range partitionCases {
		args := map[string]any{"dir": dir, "clients": raw["clients"]}
		for k, v := range raw {
			if k != "classes" {
				args[k] = v
			}
		}
		f := build(t, "cifar", args)
		twin := twinOf(raw)
		twin.Classes = 10
		sameFederated(t, f, twin)
	}
	hundred := t.TempDir()
	writeCIFAR(t, hundred, []string{"train.bin"}, 30, pix, tb.Y, true)
	testTab, testPix := byteTable(9, CIFARPixels, 4, 0)
	writeCIFAR(t, hundred, []string{"test.bin"}, 9, testPix, testTab.Y, true)
	f := build(t, "cifar", map[string]any{"dir": hundred, "classes": 100, "clients": 3, "seed": 7})
	twin := twinOf(map[string]any{"classes": 4, "clients": 3, "seed": 7})
	twin.Classes, twin.Test = 100, f.Test
	sameFederated(t, f, twin)
	seen := 0
	for _, d := range f.Test {
		for i := range d.N {
			r := int(d.Row(i)[0]*255+0.5) / 31 // pixel 0 of row r is 31r mod 256
			if d.Y[i] != float64(testTab.Y[r]) || d.Row(i)[5] != testTab.X[r][5] {
				t.Fatalf("test row %d of a client is not test record %d", i, r)
			}
			seen++
		}
	}
	if seen != 9 {
		t.Fatalf("%d test rows dealt, want 9", seen)
	}
}

func TestCIFARErrors(t *testing.T) {
	tb, pix := byteTable(4, CIFARPixels, 10, 0)
	dir := t.TempDir()
	writeCIFAR(t, dir, []string{"data_batch_1.bin"}, 4, pix, tb.Y, false)
	if err := buildErr(t, "cifar", map[string]any{"dir": dir, "classes": 100}); !strings.Contains(err.Error(), "train.bin: no such file or directory (the CIFAR-100 binary version holds train.bin and test.bin)") {
		t.Errorf("cifar-100 files: %v", err)
	}
	if err := buildErr(t, "cifar", map[string]any{"dir": dir, "classes": 20}); !strings.Contains(err.Error(), "classes = 20: CIFAR has 10 or 100") {
		t.Errorf("classes: %v", err)
	}
	if err := buildErr(t, "cifar", map[string]any{"dir": t.TempDir()}); !strings.Contains(err.Error(), "no data_batch_N.bin in") {
		t.Errorf("empty dir: %v", err)
	}
	path := filepath.Join(dir, "data_batch_1.bin")
	b, _ := os.ReadFile(path)
	b[3*(CIFARPixels+1)] = 10
	os.WriteFile(path, b, 0o644)
	if err := buildErr(t, "cifar", map[string]any{"dir": dir, "clients": 2}); !strings.Contains(err.Error(), "data_batch_1.bin record 3: label 10 is not a class in 0..9 (classes = 10)") {
		t.Errorf("label: %v", err)
	}
	os.WriteFile(path, b[:len(b)-5], 0o644)
	if err := buildErr(t, "cifar", map[string]any{"dir": dir, "clients": 2}); !strings.Contains(err.Error(), path+": 12287 bytes is not a whole number of 3073-byte records (a label byte and 3,072 pixel bytes)") {
		t.Errorf("truncated: %v", err)
	}
	a := mustValidate(t, "cifar", map[string]any{"dir": dir})
	if got, what, _ := a.Spec().Size(a); got != 3*3072+3*8+3*3072 || what != "training images = 3" {
		t.Errorf("declared %d (%q)", got, what)
	}
}
