package rundir

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// A session whose final manifest cannot be written (a full disk: the
// manifest is written whole to a new file and renamed, so it needs free
// space the size of the manifest) leaves its end in the lock file instead:
// the file exists and holds a few dozen bytes already, so rewriting it in
// place within its first block needs no free space. The lock file is then
// kept (unlocked); its note starts with endedPrefix. Readers consult the
// note only while the manifest says running.
const (
	endedPrefix = "ended "
	maxNote     = 480 // bytes: well within the lock file's first block
)

// leaveNote makes the lock file say, when the lock is released, that the
// session ended with status and cause but could not write the manifest
// (werr).
func (l *lock) leaveNote(status, cause string, werr error) {
	if l == nil {
		return
	}
	what := status
	if cause != "" {
		what += " (" + cause + ")"
	}
	l.note = fmt.Sprintf("%s%s with status %s; %s could not be written: %v", endedPrefix,
		time.Now().UTC().Format(time.RFC3339), what, ManifestFile, werr)
	if len(l.note) > maxNote {
		l.note = strings.ToValidUTF8(l.note[:maxNote-3], "") + "…"
	}
}

// recorded says that the session's end is in the manifest: the lock file
// is removed at release, with any note of an earlier session.
func (l *lock) recorded() {
	if l != nil {
		l.note = ""
	}
}

// writeNote rewrites the lock file with its note, in place.
func (l *lock) writeNote() error {
	// WriteAt then Truncate, not Truncate(0) first: freeing the block
	// and asking for it again could fail on a full disk.
	if _, err := l.f.WriteAt([]byte(l.note+"\n"), 0); err != nil {
		return err
	}
	return l.f.Truncate(int64(len(l.note) + 1))
}

// readNote returns the note a session left in the lock file at path (see
// leaveNote) without its prefix, or "" if there is none.
func readNote(path string) string {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 2*maxNote))
	return noteOf(string(b))
}

// noteOf returns the note in the text of a lock file, or "".
func noteOf(text string) string {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, endedPrefix) {
		return ""
	}
	return strings.TrimPrefix(text, endedPrefix)
}

// unfinishedCause says why a directory whose manifest says running, and
// which no session holds, was left so: the note of its last session, or,
// without one, that it was killed or could not write.
func unfinishedCause(note string) string {
	if note != "" {
		return "it ended " + note
	}
	return "it was killed, or could not write its manifest (a full disk?)"
}

// settleUnfinished reports the manifest m of the directory at path, which
// says running while no session holds the directory, as interrupted (in
// memory; the file is rewritten by the next session), with the reason in
// m.Error, and returns the note commands show.
func settleUnfinished(path string, m *Manifest, note string) string {
	msg := fmt.Sprintf("%s: its last session did not finish (manifest status %q, and no session holds the directory): %s; "+
		"what is listed was complete when last written; run the script again into %s to finish it",
		path, m.Status, unfinishedCause(note), path)
	m.Status, m.Error = StatusInterrupted, msg
	return msg
}
