package rundir

import (
	"fmt"
	"os"
	"path/filepath"
)

// PlotsDir is where fedlab plot writes a directory's figures by default.
const PlotsDir = "plots"

// ReportFile is where fedlab report writes a directory's HTML report by
// default.
const ReportFile = "report.html"

// CheckpointsDir is reserved for the state of runs in progress.
const CheckpointsDir = "checkpoints"

// Reserved are the names of a run directory's own entries: fedlab writes
// them, and a script cannot (fedlab.csv, fedlab.save_model and
// fedlab.plot refuse them, also with --unsafe).
func Reserved() []string {
	return []string{ManifestFile, RecordsFile, ScriptCopyFile, LockFile, ResultsDir, ModelsDir, OptimaDir, PlotsDir, ReportFile, CheckpointsDir, ClaimsFile}
}

// ownEntries are the names fedlab writes in a run directory.
var ownEntries = Reserved()

// CheckLinks refuses a run directory whose own entries (the manifest, the
// records, results/, models/, optima/, plots/, the lock, the script copy,
// the report, checkpoints/) are symbolic links: writing through them would
// write outside the directory (a link planted in a shared scratch
// directory could make a run overwrite another file). It also refuses an
// entry of the wrong type (a named pipe as the manifest, a file as
// optima/), which fedlab could neither read nor write. Missing entries are
// fine.
func CheckLinks(dir string) error {
	for _, name := range ownEntries {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		mode := fi.Mode()
		switch {
		case mode&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			return fmt.Errorf("%s is a symbolic link (to %s): fedlab writes its run directory's own entries itself and does not follow links there; remove the link", p, target)
		case ownDirs[name] && !mode.IsDir():
			return notDirectory(p, mode)
		case !ownDirs[name] && !mode.IsRegular():
			return notRegular(p, mode)
		}
	}
	return nil
}

// ownDirs are the own entries that are directories.
var ownDirs = map[string]bool{ResultsDir: true, ModelsDir: true, OptimaDir: true, PlotsDir: true, CheckpointsDir: true}
