package argmax32

import "golang.org/x/sys/cpu"

// fold8 is Fold on the first n values (n a positive multiple of 8) in AVX2
// assembly, or nil without AVX2.
var fold8 = pick()

func pick() func(v, best *float32, arg *int32, n int, a int32) {
	if cpu.X86.HasAVX2 {
		return foldAVX2
	}
	return nil
}

// foldAVX2 is fold8 in assembly (fold_amd64.s).
//
//go:noescape
func foldAVX2(v, best *float32, arg *int32, n int, a int32)
