//go:build !amd64

package argmax32

// fold8 is nil: only amd64 has an assembly Fold.
var fold8 func(v, best *float32, arg *int32, n int, a int32)
