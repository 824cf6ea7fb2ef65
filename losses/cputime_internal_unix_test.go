//go:build unix

package losses

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) the process has used (the
// internal tests' copy of losses_test's).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
