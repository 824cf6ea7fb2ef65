//go:build unix

package gemm32

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) the process has used, to report
// throughput per CPU second, which other jobs on a shared machine disturb
// far less than wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
