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
	// AddressSpace is set for limits on the memory the process has mapped
	// (RLIMIT_AS, RLIMIT_DATA) rather than on what it uses: memory freed
	// by the garbage collector still counts against them.
	AddressSpace bool
}

// Ceiling is the memory ceiling of a run: max bytes if max > 0 (from
// --max-memory), else a share of each limit the process is under, the
// tightest winning: half of a limit on the memory used (a doubling string
// needs twice its size at once, and the process is not alone), a quarter
// of a limit on the address space (RLIMIT_AS, RLIMIT_DATA), which also
// counts what the Go runtime has mapped but not yet given back and its own
// reservations (about 1 GB of a 4 GB `ulimit -v` before the first
// allocation), so that the doubling that passes the ceiling still fits.
// Source names the share and the limit ("half of the available memory
// (MemAvailable)"). plan.NewLimits computes it once for a session: the Lua
// guard and the file readers of the plan's datasets take it from there
// (readers called outside a plan compute the default, max = 0).
func Ceiling(max uint64) Budget {
	if max > 0 {
		return Budget{Limit: max, Source: "--max-memory"}
	}
	var b Budget
	for _, l := range Limits() {
		share, name := l.Limit/2, "half of "
		if l.AddressSpace {
			share, name = l.Limit/4, "a quarter of "
		}
		if b.Limit == 0 || share < b.Limit {
			b = Budget{Limit: share, Source: name + l.Source, AddressSpace: l.AddressSpace}
		}
	}
	return b
}

// Paths and functions Limits reads, variables so that tests can point them
// at fixtures.
var (
	meminfoPath  = "/proc/meminfo"
	cgroupV2Path = "/sys/fs/cgroup/memory.max"
	cgroupV1Path = "/sys/fs/cgroup/memory/memory.limit_in_bytes"
	rlimit       = getrlimit
)

// Limits lists the memory limits the process is under and where each
// comes from: MemAvailable of /proc/meminfo, the cgroup v2 memory.max and
// the cgroup v1 memory.limit_in_bytes (Linux; "max" and the v1 "no limit"
// value are not limits), and RLIMIT_AS and RLIMIT_DATA (ulimit -v, ulimit
// -d; as on HPC login and batch nodes).
func Limits() []Budget {
	var out []Budget
	if avail, ok := memAvailable(); ok {
		out = append(out, Budget{Limit: avail, Source: "the available memory (MemAvailable)"})
	}
	for _, c := range []struct{ path, name string }{{cgroupV2Path, "the cgroup v2 limit (memory.max)"}, {cgroupV1Path, "the cgroup v1 limit (memory.limit_in_bytes)"}} {
		if b, err := os.ReadFile(c.path); err == nil {
			if limit, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && limit < 1<<62 {
				out = append(out, Budget{Limit: limit, Source: c.name})
			}
		}
	}
	for _, r := range []struct {
		which int
		name  string
	}{{rlimitAS, "RLIMIT_AS (ulimit -v)"}, {rlimitData, "RLIMIT_DATA (ulimit -d)"}} {
		if limit, ok := rlimit(r.which); ok {
			out = append(out, Budget{Limit: limit, Source: r.name, AddressSpace: true})
		}
	}
	return out
}

// memAvailable reads MemAvailable from /proc/meminfo.
func memAvailable() (bytes uint64, ok bool) {
	f, err := os.Open(meminfoPath)
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
			return kb * 1024, true
		}
	}
	return 0, false
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
