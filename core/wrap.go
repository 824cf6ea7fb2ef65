package core

// Unwrapper is implemented by an algorithm that wraps another one (a
// pipeline stage that records its iterates, for example). The engine looks
// the optional interfaces (Participants, Gossiper, Nodes, ...) up through
// the chain with As, so a wrapper never hides a capability of the
// algorithm it wraps.
type Unwrapper interface {
	Unwrap() Algorithm
}

// As returns alg as a T: alg itself if it implements T, otherwise the
// algorithm it wraps (see Unwrapper), and so on down the chain.
func As[T any](alg Algorithm) (T, bool) {
	for alg != nil {
		if t, ok := alg.(T); ok {
			return t, true
		}
		u, ok := alg.(Unwrapper)
		if !ok {
			break
		}
		alg = u.Unwrap()
	}
	var zero T
	return zero, false
}
