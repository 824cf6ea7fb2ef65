//go:build unix

package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Process is the user + system CPU time the process has used so far; ok
// is false if the system did not say.
func Process() (cpu time.Duration, ok bool) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
