package prefetch

// hint issues PREFETCHT0 for every 64-byte line of the n values at p
// (prefetch_amd64.s).
//
//go:noescape
func hint(p *float64, n int)
