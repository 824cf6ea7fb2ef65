package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessAdvancesWithWork: busy work advances the process's CPU time
// by 20 ms (however long the machine's load makes that take in wall time,
// up to a minute), and the time never decreases on the way.
func TestProcessAdvancesWithWork(t *testing.T) {
	start, ok := Process()
	if !ok {
		if runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
			t.Fatalf("no CPU time on %s", runtime.GOOS)
		}
		t.Skip("the system reports no CPU time")
	}
	last, x := start, 0
	for deadline := time.Now().Add(time.Minute); last-start < 20*time.Millisecond; {
		for range 100000 {
			x++
		}
		now, _ := Process()
		if now < last {
			t.Fatalf("the CPU time went back from %v to %v", last, now)
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute of busy work advanced the CPU time by %v (%d iterations)", last-start, x)
		}
		last = now
	}
}
