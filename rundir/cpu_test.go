package rundir

import (
	"testing"
	"time"
)

// burnCPU spins until the process has used d more CPU time.
func burnCPU(t *testing.T, d time.Duration) {
	t.Helper()
	start, _ := processCPU()
	for {
		if now, _ := processCPU(); now-start >= d {
			return
		}
	}
}

// TestManifestRecordsTheSessionsCPUTime: cpu_seconds is the CPU time the
// process used between Open and Finish: at least what the session burnt,
// at most what the process used around it, and not what it used before.
func TestManifestRecordsTheSessionsCPUTime(t *testing.T) {
	if _, ok := processCPU(); !ok {
		t.Skip("the system does not report CPU time: the manifest leaves cpu_seconds out")
	}
	burnCPU(t, 400*time.Millisecond) // before the session: not its time
	dir := t.TempDir()
	before, _ := processCPU()
	d, err := Open(dir, Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Execute("fedlab.sweep", "sweep.lua:3", rules, sweepJobs(t)); err != nil {
		t.Fatal(err)
	}
	burnCPU(t, 200*time.Millisecond)
	if _, err := d.Finish(nil); err != nil {
		t.Fatal(err)
	}
	after, _ := processCPU()
	m, _, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, most := m.CPUSeconds, (after - before).Seconds(); got < 0.2 || got > most+0.001 {
		t.Errorf("cpu_seconds %.3f, want between the 0.200 s burnt in the session and the %.3f s the process used around it", got, most)
	}
}
