// Package cputime reads the CPU time the process has used, for the
// manifest's cpu_seconds and for benchmarks that report rates per
// CPU-second (which other jobs on a shared machine disturb far less than
// wall-clock time).
package cputime

import "time"

// Now is Process's time, 0 where the system does not say (benchmarks
// then report no rate per CPU-second).
func Now() time.Duration {
	cpu, _ := Process()
	return cpu
}
