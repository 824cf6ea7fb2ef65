//go:build !amd64

package prefetch

// hint does nothing: only amd64 has an assembly prefetch.
func hint(*float64, int) {}
