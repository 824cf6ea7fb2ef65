//go:build !unix

package rundir

import (
	"errors"
	"os"
)

// errLocked: another open file holds the lock.
var errLocked = errors.New("locked")

// lockFile does not lock on systems without flock: run directories are
// not protected against concurrent sessions there (docs/reliability.md).
func lockFile(*os.File) error { return nil }

// noFollow is unavailable here; CheckLinks refuses links before the lock
// is opened.
const noFollow = 0

// held cannot tell without flock: a lock file is taken as held.
func held(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
