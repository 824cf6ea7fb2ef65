//go:build unix

package experiment

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU is the user + system CPU time the process has used so far;
// ok is false if the system did not say.
func processCPU() (cpu time.Duration, ok bool) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
