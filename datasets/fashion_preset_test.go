package datasets

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// federatedDigest hashes every value of a federated dataset: name, sizes,
// and each client's training and test features and labels, bit for bit.
func federatedDigest(f *core.Federated) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s %d %d %d %d|", f.Name, f.Features, f.Classes, len(f.Train), len(f.Test))
	put := func(d *core.Data) {
		fmt.Fprintf(h, "n%d f%d|", d.N, d.Features)
		var b [8]byte
		for i := range d.N {
			for _, v := range d.Row(i) {
				binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
				h.Write(b[:])
			}
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(d.Y[i]))
			h.Write(b[:])
		}
	}
	for _, d := range f.Train {
		put(d)
	}
	for _, d := range f.Test {
		put(d)
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// TestFashionMNISTPresetIsBitIdentical: the fashion_mnist preset of the idx
// reader gives, value for value, the datasets that the reader before the
// preset gave (digests recorded from that implementation on the same
// fixture), for every partition and subset option.
func TestFashionMNISTPresetIsBitIdentical(t *testing.T) {
	dir := fmnistFixture(t, 300, 40)
	for _, c := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{}, "13fbbb819653f954"},
		{map[string]any{"clients": 3, "seed": 5}, "72d1c4225ba10033"},
		{map[string]any{"partition": "dirichlet", "alpha": 0.3, "clients": 4}, "46e4f7ad6e434e61"},
		{map[string]any{"partition": "dominant", "dominant": 0.8}, "645124985c43a544"},
		{map[string]any{"clients": 2, "train_samples": 70, "test_samples": 11, "seed": 9}, "66ecfda895a874cd"},
	} {
		c.raw["dir"] = dir
		if got := federatedDigest(build(t, "fashion_mnist", c.raw)); got != c.want {
			t.Errorf("%v: digest %s, want %s", c.raw, got, c.want)
		}
	}
}
