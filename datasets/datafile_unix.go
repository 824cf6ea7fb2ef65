//go:build unix

package datasets

import "syscall"

// openNonblock opens a data file without waiting for a named pipe's writer.
const openNonblock = syscall.O_NONBLOCK
