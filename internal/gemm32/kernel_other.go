//go:build !amd64

package gemm32

// kernelSets lists the kernel sets this CPU can run: only amd64 has
// assembly ones.
func kernelSets() []kernelSet { return []kernelSet{goKernels} }
