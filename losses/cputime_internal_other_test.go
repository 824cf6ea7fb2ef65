//go:build !unix

package losses

import "time"

// cpuTime is not measured on this platform: CPU metrics are not reported.
func cpuTime() time.Duration { return 0 }
