package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Busy is the error of a session that finds its run directory locked by
// another session (another `fedlab run` or `fedlab merge` into it).
type Busy struct {
	Dir    string
	Holder string // what the other session wrote into the lock file
}

// Error explains what to do.
func (b *Busy) Error() string {
	holder := ""
	if b.Holder != "" {
		holder = " (" + b.Holder + ")"
	}
	return fmt.Sprintf("%s is in use by another fedlab session%s: wait for it to end, or give another --out", b.Dir, holder)
}

// lock is the exclusive lock of a session on its run directory: the
// operating system's advisory lock on DIR/fedlab.lock, which ends with the
// process however it ends (see lockFile). A second session into the same
// directory is refused with a *Busy error rather than made to wait: it
// would resume a directory whose content changes under it.
type lock struct {
	f    *os.File
	path string
	// previous is the note the last session left in the lock file
	// (see leaveNote), read before this session overwrote it.
	previous string
	// note is what the lock file says after release ("": it is removed):
	// the previous note until the session records its end (recorded), or
	// this session's (leaveNote).
	note string
}

// acquireLock locks dir (which must exist) for this session, describing
// the session in the lock file.
func acquireLock(dir string, script Script) (*lock, error) {
	path := filepath.Join(dir, LockFile)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o644) // never through a link planted as the lock
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			f.Close()
			if err != nil {
				return nil, err
			}
			return nil, notRegular(path, fi.Mode())
		}
		if err := lockFile(f); err != nil {
			holder, _ := io.ReadAll(io.LimitReader(f, 512))
			f.Close()
			if errors.Is(err, errLocked) {
				return nil, &Busy{Dir: dir, Holder: strings.TrimSpace(string(holder))}
			}
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		// The previous holder removes the file when it ends: if it did so
		// between our open and our lock, we hold a lock on a removed file.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(held, now) {
			f.Close()
			continue
		}
		old, _ := io.ReadAll(io.LimitReader(f, 2*maxNote))
		text := fmt.Sprintf("pid %d, script %s, since %s", os.Getpid(), filepath.Base(script.Path), time.Now().UTC().Format(time.RFC3339))
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(text+"\n"), 0)
		}
		l := &lock{f: f, path: path, previous: noteOf(string(old))}
		if l.previous != "" {
			l.note = endedPrefix + l.previous
		}
		return l, nil
	}
}

// release removes the lock file and ends the lock (in this order, so that
// no other session can hold a lock on a file still named fedlab.lock); a
// lock with a note (see leaveNote) keeps the file, rewritten to the note.
func (l *lock) release() {
	if l == nil {
		return
	}
	if l.note == "" || l.writeNote() != nil {
		os.Remove(l.path)
	}
	l.f.Close()
}
