//go:build !unix

package experiment

import "time"

// processCPU is not measured on systems without getrusage: the manifest
// leaves cpu_seconds out.
func processCPU() (time.Duration, bool) { return 0, false }
