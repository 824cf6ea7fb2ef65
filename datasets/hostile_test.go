package datasets

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/internal/budget"
)

// TestIDXLabelsBomb: a gzip labels file declaring 2³¹−1 labels (its zeros
// compressed) is refused on its header, against the images' count,
// before its data are read; the memory declaration counts its labels as
// declared.
func TestIDXLabelsBomb(t *testing.T) {
	dir := t.TempDir()
	images := filepath.Join(dir, "train-images-idx3-ubyte")
	labels := filepath.Join(dir, "train-labels-idx1-ubyte.gz")
	os.WriteFile(images, idxBytes([]int{3, 2, 2}, make([]byte, 12)), 0o644)
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write(idxBytes([]int{1<<31 - 1}, make([]byte, 8<<20)))
	z.Close()
	os.WriteFile(labels, b.Bytes(), 0o644)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := buildErr(t, "idx", map[string]any{"dir": dir, "clients": 1})
	runtime.ReadMemStats(&after)
	if want := images + ": 3 images but 2147483647 labels in " + labels; !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("%d bytes allocated before the refusal", grew)
	}
	a := mustValidate(t, "idx", map[string]any{"dir": dir, "clients": 1})
	if got, _, _ := a.Spec().Size(a); got != 3*4+3*8+12+(1<<31-1) {
		t.Errorf("declared %d, want %d (the labels as declared)", got, 3*4+3*8+12+(1<<31-1))
	}
}

// TestReadNGrowsUnderTheCeiling: reading the 2³¹−1 values a header
// declares from an endless stream stops with the ceiling's error before
// a buffer growth would pass the ceiling, not after.
func TestReadNGrowsUnderTheCeiling(t *testing.T) {
	room := uint64(64 << 20)
	var before, after runtime.MemStats
	runtime.GC()
	b := budget.Budget{Limit: room, Source: "the test"}
	if testing.Short() { // 16 MiB of room above what the process holds: the buffer still doubles a few times
		room = 16 << 20
		b.Limit = liveHeap() + room
	}
	runtime.ReadMemStats(&before)
	_, err := readN(endless(0), 1<<31-1, readLimits{ceiling: b})
	runtime.ReadMemStats(&after)
	var ce *CeilingError
	if !errors.As(err, &ce) {
		t.Fatalf("%v, want the ceiling's error", err)
	}
	// TotalAlloc sums every buffer of the doubling growth (less than twice
	// the last one) and whatever else the process allocates meanwhile (the
	// race detector's shadow bookkeeping): a bound of twice the ceiling and
	// some slack still tells a stop at the ceiling from a read of 2 GiB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 2*room+(16<<20) {
		t.Errorf("%d bytes allocated under a ceiling of %d MiB", grew, b.Limit>>20)
	}
}

// TestMissingDataSuggests: a misspelled data folder or file is named with
// the nearest existing name; a missing folder deeper in the path names
// the first missing component.
func TestMissingDataSuggests(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "femnist", "train"), 0o755)
	os.WriteFile(filepath.Join(dir, "femnist", "train", "all_data.json"), []byte(`{"users":["a","b"],"user_data":{"a":{"x":[[1]],"y":[1]},"b":{"x":[[0]],"y":[0]}}}`), 0o644)
	for _, c := range []struct {
		name string
		raw  map[string]any
		want string
	}{
		{"leaf", map[string]any{"path": filepath.Join(dir, "femnsit", "train"), "classes": 2},
			filepath.Join(dir, "femnsit", "train") + ": no such file or directory: " + filepath.Join(dir, "femnsit") + " does not exist (did you mean \"femnist\"?)"},
		{"leaf", map[string]any{"path": filepath.Join(dir, "femnist", "trian"), "classes": 2},
			filepath.Join(dir, "femnist", "trian") + ": no such file or directory (did you mean \"train\"?)"},
		{"npz", map[string]any{"path": filepath.Join(dir, "femnist", "tran"), "classes": 2}, "(did you mean \"train\"?)"},
		{"cifar", map[string]any{"dir": filepath.Join(dir, "femnits")}, "(did you mean \"femnist\"?)"},
		{"idx", map[string]any{"dir": filepath.Join(dir, "femnits")}, "(did you mean \"femnist\"?)"},
		{"leaf", map[string]any{"path": filepath.Join(dir, "femnist", "train"), "test": filepath.Join(dir, "femnist", "test"), "classes": 2},
			"test split: " + filepath.Join(dir, "femnist", "test") + ": no such file or directory: leave out test to use test_fraction (each client's rows split), or give test the folder of LEAF's test split"},
	} {
		if err := buildErr(t, c.name, c.raw); !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.name, c.raw, err, c.want)
		}
	}
}
