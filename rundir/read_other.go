//go:build !unix

package rundir

import (
	"os"
	"path/filepath"
)

// openInside opens dir/parts[0]/…/parts[n-1] after checking every
// component with Lstat (a link, or anything but a directory on the way and
// a regular file at the end, is refused before it is opened); the file
// opened must be the one checked. Without openat, a component swapped for
// a link between the checks and the open is not detected.
func openInside(dir string, parts []string) (*os.File, error) {
	path := dir
	var fi os.FileInfo
	for i, p := range parts {
		path = filepath.Join(path, p)
		var err error
		if fi, err = os.Lstat(path); err != nil {
			return nil, err
		}
		last := i == len(parts)-1
		switch mode := fi.Mode(); {
		case mode&os.ModeSymlink != 0:
			return nil, isLink(path)
		case !last && !mode.IsDir():
			return nil, notDirectory(path, mode)
		case last && !mode.IsRegular():
			return nil, notRegular(path, mode)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, &RefusedError{Path: path, Why: "changed while it was opened; try again"}
	}
	return f, nil
}
