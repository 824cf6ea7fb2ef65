package hugepages

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestFloatsAreZeroedAndSized checks the allocation itself, on both sides
// of the hint's threshold.
func TestFloatsAreZeroedAndSized(t *testing.T) {
	for _, n := range []int{0, 1, minBytes/8 - 1, minBytes / 8, 3*minBytes/8 + 5} {
		x := Floats(n)
		if len(x) != n {
			t.Fatalf("Floats(%d) has length %d", n, len(x))
		}
		for i, v := range x {
			if v != 0 {
				t.Fatalf("Floats(%d)[%d] = %g, want 0", n, i, v)
			}
		}
	}
}

// TestLargeFloatsAreHinted reads /proc/self/smaps and checks that the
// mapping holding a large allocation carries the huge-page advice ("hg" in
// VmFlags), which the kernel honours whenever it has huge pages to give.
func TestLargeFloatsAreHinted(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("transparent huge pages are a Linux feature")
	}
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(b), "[never]") {
		t.Skip("transparent huge pages are not available here")
	}
	x := Floats(16 << 20 / 8)
	mid := uintptr(unsafe.Pointer(&x[len(x)/2]))
	flags, err := vmFlags(mid)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("the mapping of a 16 MiB allocation has VmFlags %q, without hg", flags)
	}
	runtime.KeepAlive(x)
}

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps holding addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	inside := false
	for s.Scan() {
		line := s.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			inside = lo <= addr && addr < hi
			continue
		}
		if inside && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	return "", fmt.Errorf("no mapping of /proc/self/smaps holds %#x", addr)
}
