//go:build unix

package rundir

import (
	"errors"
	"os"
	"syscall"
)

// errLocked: another open file holds the lock.
var errLocked = errors.New("locked")

// lockFile takes the exclusive advisory lock (flock) of f without waiting.
// The kernel releases it when the process ends, even when it is killed.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// noFollow makes opening a link fail instead of following it, and a
// named pipe planted as the lock open without waiting for a writer.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// held reports whether a live session holds the lock file at path (a
// shared lock cannot be taken while it does); a missing file is not held.
func held(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
