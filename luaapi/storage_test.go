package luaapi

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/fedlab/fedlab/rundir"
)

// TestStorageErrorsArePlaced: an error of the run directory names the
// script line and the call (a full disk said only "write
// .../results/.KEY.json.NNN.tmp: no space left on device") and, for a full
// disk, what is kept and how to resume; an interruption keeps its own place.
func TestStorageErrorsArePlaced(t *testing.T) {
	full := &fs.PathError{Op: "write", Path: "out/results/.k.json.1.tmp", Err: syscall.ENOSPC}
	got := storageError("fedlab.compare", "s.lua:3", full).Error()
	for _, want := range []string{"s.lua:3: fedlab.compare: the disk is full", "free space and run the script again to resume", "no space left on device"} {
		if !strings.Contains(got, want) {
			t.Errorf("full disk: %q lacks %q", got, want)
		}
	}
	if got := storageError("fedlab.run", "s.lua:9", errors.New("rename x y: permission denied")).Error(); got != "s.lua:9: fedlab.run: rename x y: permission denied" {
		t.Errorf("other error: %q", got)
	}
	in := &rundir.Interrupted{Where: "s.lua:4", Cause: errors.New("time limit reached")}
	if got := storageError("fedlab.sweep", "s.lua:3", in); got != error(in) {
		t.Errorf("an interruption is rewritten: %v", got)
	}
}
