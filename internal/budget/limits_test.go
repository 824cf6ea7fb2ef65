package budget

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBudgetTakesTheTightestLimitAndNamesIt: MemAvailable, the cgroup v2
// and v1 limits, RLIMIT_AS and RLIMIT_DATA are all read and the smallest
// share (half, a quarter of an address-space limit) wins, named as the source (only MemAvailable and cgroup v2 were read: a
// `ulimit -v` on a batch node was ignored).
func TestBudgetTakesTheTightestLimitAndNamesIt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	saved := []string{meminfoPath, cgroupV2Path, cgroupV1Path}
	savedRlimit := rlimit
	defer func() { meminfoPath, cgroupV2Path, cgroupV1Path, rlimit = saved[0], saved[1], saved[2], savedRlimit }()
	meminfoPath = write("meminfo", "MemTotal: 16000000 kB\nMemAvailable: 8000000 kB\n")
	cgroupV2Path = write("v2", "max\n")
	cgroupV1Path = write("v1", "9223372036854771712\n") // v1's "no limit"
	limits := map[int]uint64{}
	rlimit = func(which int) (uint64, bool) { v, ok := limits[which]; return v, ok }

	if b := Ceiling(0); b.Limit != 8000000*1024/2 || b.Source != "half of the available memory (MemAvailable)" || b.AddressSpace {
		t.Errorf("MemAvailable only: %+v", b)
	}
	// ulimit -v 4000000: a quarter of it (1.0e9 B) is below half of MemAvailable
	limits[rlimitAS] = 4000000 * 1024
	if b := Ceiling(0); b.Limit != 4000000*1024/4 || b.Source != "a quarter of RLIMIT_AS (ulimit -v)" || !b.AddressSpace {
		t.Errorf("with ulimit -v: %+v", b)
	}
	limits[rlimitData] = 3 << 30
	if b := Ceiling(0); b.Limit != (3<<30)/4 || b.Source != "a quarter of RLIMIT_DATA (ulimit -d)" || !b.AddressSpace {
		t.Errorf("with ulimit -d: %+v", b)
	}
	cgroupV1Path = write("v1", "1073741824\n")
	if b := Ceiling(0); b.Limit != 1<<29 || b.Source != "half of the cgroup v1 limit (memory.limit_in_bytes)" || b.AddressSpace {
		t.Errorf("with a cgroup v1 limit: %+v", b)
	}
	cgroupV2Path = write("v2", "536870912\n")
	if b := Ceiling(0); b.Limit != 1<<28 || b.Source != "half of the cgroup v2 limit (memory.max)" {
		t.Errorf("with a cgroup v2 limit: %+v", b)
	}
	if b := Ceiling(5 << 30); b.Limit != 5<<30 || b.Source != "--max-memory" || b.AddressSpace {
		t.Errorf("--max-memory: %+v", b)
	}
}
