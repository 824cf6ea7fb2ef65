//go:build !unix

package cputime

import "time"

// Process is not measured on systems without getrusage: 0, false.
func Process() (time.Duration, bool) { return 0, false }
