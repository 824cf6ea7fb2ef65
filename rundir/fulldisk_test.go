package rundir

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fillDiskAtFirstResult makes writeFile fail as a full disk does from the
// first result file written after arm is called: that write and every
// later one fail with ENOSPC (records.csv, which writeFile does not
// write, still succeeds). The returned free ends it.
func fillDiskAtFirstResult(t *testing.T) (arm, free func()) {
	real := writeFile
	armed, full := false, false
	writeFile = func(path string, b []byte) error {
		if armed && strings.Contains(path, string(filepath.Separator)+ResultsDir+string(filepath.Separator)) {
			full = true
		}
		if full {
			return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
		}
		return real(path, b)
	}
	t.Cleanup(func() { writeFile = real })
	return func() { armed = true }, func() { writeFile = real }
}

// checkLeftInterrupted checks a directory whose session ended on a full
// disk: the manifest file still says running, every reader reports it
// interrupted with the cause, the runs stored before are intact, and a
// resume says so, reuses them and completes.
func checkLeftInterrupted(t *testing.T, dir string, stored int, resume func(notices io.Writer) Summary) {
	t.Helper()
	if m, _, _ := ReadManifest(dir); m.Status != StatusRunning {
		t.Fatalf("the manifest on disk says %q: the test does not reach the unwritable final manifest", m.Status)
	}
	if held(filepath.Join(dir, LockFile)) {
		t.Fatal("the lock is still held after Finish")
	}
	l, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"its last session did not finish", "with status failed", "no space left on device", "could not be written"} {
		if !strings.Contains(l.Manifest.Error, want) || !strings.Contains(l.Unfinished, want) {
			t.Errorf("Load: error %q lacks %q", l.Manifest.Error, want)
		}
	}
	if l.Manifest.Status != StatusInterrupted {
		t.Errorf("Load reports status %q, want %q", l.Manifest.Status, StatusInterrupted)
	}
	got := 0
	for _, r := range l.Calls[0] {
		if r.Result != nil {
			got++
		}
	}
	if got != stored {
		t.Errorf("%d runs of the first call read back, want the %d stored before the disk filled", got, stored)
	}
	// a session that is refused, and a merge, read the directory and keep the note
	other := Script{Path: "other.lua", SHA256: strings.Repeat("b", 64)}
	if _, err := Open(dir, Options{Script: other}); err == nil || !strings.Contains(err.Error(), "holds the runs of another script") {
		t.Fatalf("another script: %v", err)
	}
	if _, err := Merge(filepath.Join(t.TempDir(), "merged"), []string{dir}); err != nil {
		t.Fatal(err)
	}
	if note := readNote(filepath.Join(dir, LockFile)); !strings.Contains(note, "no space left on device") {
		t.Errorf("the note is lost after a refused session and a merge: %q", note)
	}
	var notices bytes.Buffer
	sum := resume(&notices)
	if n := notices.String(); !strings.Contains(n, "its last session was interrupted") || !strings.Contains(n, "no space left on device") {
		t.Errorf("the resume's notices do not say how the last session ended: %q", n)
	}
	if sum.Reused != stored || sum.Status != StatusComplete {
		t.Errorf("resume: %+v, want %d runs reused and status complete", sum, stored)
	}
	if m, _, _ := ReadManifest(dir); m.Status != StatusComplete {
		t.Errorf("after the resume the manifest says %q", m.Status)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock file left after the resume: %v", err)
	}
}

// TestAFullDiskLeavesTheDirectoryInterrupted: the disk fills while a
// call's results are stored; the session cannot write its final manifest
// either, so the file keeps saying running. Readers report the directory
// interrupted with the cause (from the lock file's note), not running.
func TestAFullDiskLeavesTheDirectoryInterrupted(t *testing.T) {
	jobs := sweepJobs(t)[:4]
	dir := t.TempDir()
	arm, free := fillDiskAtFirstResult(t)
	d, err := Open(dir, Options{Script: script, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs[:2]); err != nil {
		t.Fatal(err)
	}
	arm()
	_, err = d.Execute("fedlab.sweep", "sweep.lua:4", rules, jobs[2:])
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("storing on a full disk: %v", err)
	}
	if _, ferr := d.Finish(err); !errors.Is(ferr, syscall.ENOSPC) {
		t.Fatalf("Finish on a full disk: %v", ferr)
	}
	free()
	checkLeftInterrupted(t, dir, 2, func(notices io.Writer) Summary {
		_, sum, err := session(t, dir, Options{Notices: notices}, jobs[:2])
		if err != nil {
			t.Fatal(err)
		}
		return sum
	})
}

// TestAFullFilesystemLeavesTheDirectoryInterrupted is the same on a real
// full filesystem (a 1 MiB tmpfs filled with a file), where the session's
// note must fit in the lock file without free space. It needs to mount
// (root with CAP_SYS_ADMIN) and skips otherwise.
func TestAFullFilesystemLeavesTheDirectoryInterrupted(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := filepath.Join(t.TempDir(), "fs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	jobs := sweepJobs(t)[:4]
	d, err := Open(dir, Options{Script: script, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs[:2]); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(dir, "filler")
	fill(t, filler)
	_, err = d.Execute("fedlab.sweep", "sweep.lua:4", rules, jobs[2:])
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("running on a full filesystem: %v", err)
	}
	if _, ferr := d.Finish(err); !errors.Is(ferr, syscall.ENOSPC) {
		t.Fatalf("Finish on a full filesystem: %v", ferr)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	checkLeftInterrupted(t, dir, 2, func(notices io.Writer) Summary {
		_, sum, err := session(t, dir, Options{Notices: notices}, jobs[:2])
		if err != nil {
			t.Fatal(err)
		}
		return sum
	})
}

// fill writes path until the filesystem is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, chunk := range []int{64 << 10, 4 << 10, 512, 1} {
		b := make([]byte, chunk)
		for {
			if _, err := f.Write(b); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
	}
}

// A session that ended without a note (killed) reads as interrupted too.
func TestAKilledSessionReadsAsInterrupted(t *testing.T) {
	jobs := sweepJobs(t)[:2]
	dir := t.TempDir()
	d, err := Open(dir, Options{Script: script, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs); err != nil {
		t.Fatal(err)
	}
	d.lock.f.Close() // the process dies: the kernel drops the lock, the file stays
	l, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l.Manifest.Status != StatusInterrupted || !strings.Contains(l.Manifest.Error, "it was killed, or could not write its manifest") {
		t.Errorf("Load: status %q, error %q", l.Manifest.Status, l.Manifest.Error)
	}
}

// A note longer than the lock file's first block allows is cut, as valid UTF-8.
func TestTheNoteStaysSmall(t *testing.T) {
	dir := t.TempDir()
	l, err := acquireLock(dir, script)
	if err != nil {
		t.Fatal(err)
	}
	l.leaveNote(StatusFailed, strings.Repeat("é", 1000), syscall.ENOSPC)
	l.release()
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > maxNote+1 || !strings.HasSuffix(string(b), "…\n") || !strings.HasPrefix(string(b), endedPrefix) || !bytes.Equal(bytes.ToValidUTF8(b, nil), b) {
		t.Errorf("note of %d bytes: %q", len(b), b)
	}
	if note := readNote(filepath.Join(dir, LockFile)); !strings.HasPrefix(note, "20") || !strings.Contains(note, "with status failed (éé") {
		t.Errorf("readNote: %q", note)
	}
}
