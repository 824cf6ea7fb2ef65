//go:build !unix

package budget

const (
	rlimitAS   = 0
	rlimitData = 1
)

// getrlimit reports no limit where resource limits do not exist.
func getrlimit(int) (uint64, bool) { return 0, false }
