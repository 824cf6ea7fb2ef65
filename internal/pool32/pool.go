// Package pool32 computes the float32 CNN's 2×2 max-pool (with its bias
// and ReLU) and the pool's adjoint over channels-last maps, a row of
// windows per call, in AVX2 assembly (compare and blend, masked loads and
// stores, no branches per value). Enabled reports whether the CPU runs
// them; elsewhere the caller keeps its plain Go pooling, which gives the
// same bits (the kernels compare, select and add exactly as it does).
package pool32

import (
	"fmt"
	"math"
	"slices"
)

// Enabled reports whether Pool2 and Unpool2 can run (amd64 with AVX2).
func Enabled() bool { return enabled }

// Pool2 pools n 2×2 windows of C channels of a channels-last map out: the
// pixels of window x, in row-major order (i, j), hold channel c at
// out[at + i·next + (2x + j)·C + c]. For each window and channel it keeps
// the first maximum in that order (a value replaces the running maximum
// only if greater: ties keep the earlier pixel, a NaN never replaces, a
// NaN first pixel stays), writes max(0, maximum + b[c]) (Go's max: NaN
// stays NaN, −0 becomes +0) to pooled[x·C + c] and the maximum's index in
// out to arg[x·C + c].
func Pool2(n, C int, out []float32, at, next int, b, pooled []float32, arg []int32) {
	check("Pool2", n, C, len(out), at, next, len(b), len(pooled), len(arg), len(pooled))
	pool2Kernel(n, C, &out[at], next, at, &b[0], &pooled[0], &arg[0])
}

// Unpool2 is the adjoint of Pool2 for the same windows: with v = dp[x·C +
// c] where the ReLU was active (pooled[x·C + c] > 0), else +0, it writes 0
// + v at the window's maximum (arg[x·C + c]) and +0 at its other three
// pixels in dout (laid out as out in Pool2), and adds v to gb[c], window
// by window in order of x.
func Unpool2(n, C int, dp, pooled []float32, arg []int32, dout []float32, at, next int, gb []float32) {
	check("Unpool2", n, C, len(dout), at, next, len(gb), len(pooled), len(arg), len(dp))
	unpool2Kernel(n, C, &dp[0], &pooled[0], &arg[0], at, &dout[at], next, &gb[0])
}

// check panics unless the kernels run and the windows, the C per-channel
// values and the n·C pooled values fit their slices, with indices in int32.
func check(op string, n, C, size, at, next, perChannel, pooled, arg, dp int) {
	end := at + next + 2*n*C
	if !enabled || n < 1 || C < 1 || at < 0 || next < 2*n*C || end > size || end > math.MaxInt32 ||
		perChannel < C || pooled < n*C || arg < n*C || dp < n*C {
		panic(fmt.Sprintf("pool32: %s of %d windows of %d channels at %d (rows %d apart) in a map of %d, %d per-channel values, %d pooled, %d indices, %d gradients (kernels enabled: %v)",
			op, n, C, at, next, size, perChannel, pooled, arg, dp, enabled))
	}
}

// Available lists the kernel sets this CPU can run, widest first:
// "avx512" (sixteen channels at a time), "avx2" (eight); none without
// AVX2. All give the same bits.
func Available() []string {
	var sets []string
	if enabled && hasAVX512 {
		sets = append(sets, "avx512")
	}
	if enabled {
		sets = append(sets, "avx2")
	}
	return sets
}

// Set makes Pool2 and Unpool2 use the named kernels (one of Available)
// and returns the previous name; tests and benchmarks compare them.
func Set(name string) (previous string, err error) {
	previous = "avx2"
	if wide {
		previous = "avx512"
	}
	if !slices.Contains(Available(), name) {
		return previous, fmt.Errorf("pool32: kernels %q not available (available: %v)", name, Available())
	}
	wide = name == "avx512"
	return previous, nil
}
