// Package budget estimates the memory a request needs before it is
// allocated, and refuses requests over the limit with a message that says
// what was asked, what it needs and how to reduce it.
package budget

import (
	"bufio"
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
)

// Budget is a memory limit in bytes and where it comes from.
type Budget struct {
	Limit  uint64 // 0: no limit known
	Source string // e.g. "--max-memory" or "the available memory"
}

// New returns the budget of a process: max bytes if max > 0 (from
// --max-memory), else the memory available to it (the smaller of
// /proc/meminfo's MemAvailable and the cgroup limit), or no limit where
// neither is known.
func New(max uint64) Budget {
	if max > 0 {
		return Budget{Limit: max, Source: "--max-memory"}
	}
	if avail, ok := Available(); ok {
		return Budget{Limit: avail, Source: "the available memory"}
	}
	return Budget{}
}

// Available is the memory the process can still allocate, from
// /proc/meminfo and the cgroup v2 limit (Linux); ok is false elsewhere.
func Available() (bytes uint64, ok bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return 0, false
			}
			bytes, ok = kb*1024, true
		}
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && (!ok || limit < bytes) {
			bytes, ok = limit, true
		}
	}
	return bytes, ok
}

// Check refuses need bytes for what (e.g. `dataset "synthetic" (clients =
// 1000000, samples = 100, dim = 1024)`) when they exceed the budget;
// reduce says how to ask for less.
func (b Budget) Check(what string, need uint64, reduce string) error {
	if b.Limit == 0 || need <= b.Limit {
		return nil
	}
	return fmt.Errorf("%s needs about %s of memory, more than %s (%s); %s",
		what, Format(need), Format(b.Limit), b.source(), reduce)
}

func (b Budget) source() string {
	if b.Source == "" {
		return "the limit"
	}
	return b.Source
}

// Product multiplies non-negative counts and a size in bytes, saturating
// at math.MaxUint64 instead of overflowing; a negative count gives 0.
func Product(factors ...int) uint64 {
	p := uint64(1)
	for _, f := range factors {
		if f < 0 {
			return 0
		}
		hi, lo := bits.Mul64(p, uint64(f))
		if hi != 0 {
			return math.MaxUint64
		}
		p = lo
	}
	return p
}

// Sum adds byte counts, saturating at math.MaxUint64.
func Sum(xs ...uint64) uint64 {
	s := uint64(0)
	for _, x := range xs {
		var carry uint64
		if s, carry = bits.Add64(s, x, 0); carry != 0 {
			return math.MaxUint64
		}
	}
	return s
}

// Format renders bytes with a binary unit, e.g. "1.5 GiB"; the saturated
// maximum reads "more than 16 EiB".
func Format(n uint64) string {
	if n == math.MaxUint64 {
		return "more than 16 EiB"
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + units[u]
}

// ParseBytes reads a size such as "512MB", "4GiB", "2g" or "1e9" (bytes;
// k, m, g, t with or without "B" or "iB" are powers of 1024).
func ParseBytes(s string) (uint64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || v*mult >= math.MaxUint64 {
		return 0, fmt.Errorf("bad size %q: want a positive number of bytes such as 512MB, 4GB or 1e9", s)
	}
	return uint64(v * mult), nil
}
