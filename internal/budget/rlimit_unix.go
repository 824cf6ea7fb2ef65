//go:build unix

package budget

import "syscall"

const (
	rlimitAS   = syscall.RLIMIT_AS
	rlimitData = syscall.RLIMIT_DATA
)

// getrlimit is the soft limit of resource which; ok is false when it is
// unlimited or cannot be read.
func getrlimit(which int) (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(which, &r); err != nil || r.Cur == ^uint64(0) || r.Cur == 0 {
		return 0, false
	}
	return uint64(r.Cur), true
}
