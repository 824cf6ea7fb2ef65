package rundir

import (
	"fmt"
	"os"
	"path/filepath"
)

// PlotsDir is where fedlab plot writes a directory's figures by default.
const PlotsDir = "plots"

// ownEntries are the names fedlab writes in a run directory.
var ownEntries = []string{ManifestFile, RecordsFile, ResultsDir, ModelsDir, OptimaDir, LockFile, ScriptCopyFile, PlotsDir}

// CheckLinks refuses a run directory whose own entries (the manifest, the
// records, results/, models/, optima/, plots/, the lock, the script copy)
// are symbolic links: writing through them would write outside the
// directory (a link planted in a shared scratch directory could make a
// run overwrite another file). Missing entries are fine.
func CheckLinks(dir string) error {
	for _, name := range ownEntries {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			return fmt.Errorf("%s is a symbolic link (to %s): fedlab writes its run directory's own entries itself and does not follow links there; remove the link", p, target)
		}
	}
	return nil
}
