//go:build !linux

package hugepages

// advise does nothing: the hint is for Linux's transparent huge pages.
func advise([]float64) {}
