//go:build !unix

package gemm32

import "time"

// cpuTime is unknown here: 0, and BenchmarkGemm reports no GFLOP/cpu-s.
func cpuTime() time.Duration { return 0 }
