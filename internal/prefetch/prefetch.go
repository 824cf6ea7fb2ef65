// Package prefetch asks the processor to start loading memory that is read
// soon. The dense losses read a minibatch's rows in random order, and each
// row's first cache lines would otherwise wait on main memory; hinting the
// next row while the current one is computed overlaps the two. A hint
// changes no value and cannot fault.
package prefetch

// minFloats is the shortest slice worth a hint: a shorter row is loaded
// as fast by the hardware prefetcher as by the call.
const minFloats = 256

// Floats hints that v is read soon. It does nothing for slices shorter
// than 256 values, and on architectures without an assembly version.
func Floats(v []float64) {
	if len(v) >= minFloats {
		hint(&v[0], len(v))
	}
}
