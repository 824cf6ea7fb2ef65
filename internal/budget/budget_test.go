package budget

import (
	"math"
	"strings"
	"testing"
)

func TestProductSaturates(t *testing.T) {
	if got := Product(1000, 1000, 8); got != 8e6 {
		t.Errorf("Product = %d", got)
	}
	if got := Product(1<<62, 1<<62, 8); got != math.MaxUint64 {
		t.Errorf("overflowing product = %d, want saturation", got)
	}
	if got := Product(5, -1); got != 0 {
		t.Errorf("negative factor = %d", got)
	}
	if got := Sum(math.MaxUint64-1, 5); got != math.MaxUint64 {
		t.Errorf("Sum = %d", got)
	}
}

func TestCheck(t *testing.T) {
	b := Budget{Limit: 1 << 30, Source: "--max-memory"}
	if err := b.Check("x", 1<<29, "reduce"); err != nil {
		t.Error(err)
	}
	err := b.Check(`dataset "synthetic" (dim = 1000000000)`, Product(1e9, 100, 8), "lower dim")
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{`dataset "synthetic" (dim = 1000000000) needs about 745.1 GiB`, "more than 1.0 GiB (--max-memory)", "lower dim"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if (Budget{}).Check("x", math.MaxUint64, "") != nil {
		t.Error("an unknown limit refused")
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]uint64{"512MB": 512 << 20, "4GiB": 4 << 30, "2g": 2 << 30, "1e9": 1e9, "100": 100, "1.5k": 1536} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "abc", "-1GB", "0", "NaN", "1e30GB"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
}

// TestCeilingOnLinux: on Linux MemAvailable is always there, so the
// default ceiling is known, positive, named, and at most half of it.
// MemAvailable moves while other processes run, so it is read before and
// after the ceiling, and the ceiling is at most half of the larger reading.
func TestCeilingOnLinux(t *testing.T) {
	before, ok := memAvailable()
	if !ok {
		t.Skip("no /proc/meminfo")
	}
	b := Ceiling(0)
	after, _ := memAvailable()
	avail := max(before, after)
	if b.Limit == 0 || b.Limit > avail/2 || !(strings.HasPrefix(b.Source, "half of ") || strings.HasPrefix(b.Source, "a quarter of ")) {
		t.Errorf("ceiling %+v with MemAvailable %d", b, avail)
	}
}
