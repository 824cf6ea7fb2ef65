package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fedlab/fedlab/internal/filekind"
	"github.com/fedlab/fedlab/registry"
)

// openData opens a data file for reading, refusing anything but a regular
// file (a named pipe, a device, a socket, a directory) before a read can
// block: the file is opened non-blocking (open(2) of a named pipe without
// a writer would wait forever, past any time limit) and its type checked
// on the descriptor. A missing file's error suggests the nearest name.
func openData(path string) (*os.File, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, missingData(path, err)
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if err := regularData(path, st.Mode()); err != nil {
		fh.Close()
		return nil, err
	}
	return fh, nil
}

// statData is os.Stat of a data path, whose missing-file error suggests
// the nearest name.
func statData(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, missingData(path, err)
	}
	return st, nil
}

// regularData refuses a mode other than a regular file's.
func regularData(path string, mode fs.FileMode) error {
	if mode.IsRegular() {
		return nil
	}
	return fmt.Errorf("%s: %s, not a regular file: fedlab reads data from files", path, filekind.Of(mode))
}

// missingData is the error of a data path that cannot be opened: for a
// missing one, the first missing component of the path, and the nearest
// name in the directory that exists (a misspelled folder or file).
func missingData(path string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	missing := filepath.Clean(path)
	for {
		parent := filepath.Dir(missing)
		if _, err := os.Stat(parent); err == nil || parent == missing {
			break
		}
		missing = parent
	}
	dir := filepath.Dir(missing)
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	base := filepath.Base(missing)
	msg := fmt.Sprintf("%s: no such file or directory%s", path, nearName(base, names))
	if missing != filepath.Clean(path) {
		msg = fmt.Sprintf("%s: no such file or directory: %s does not exist%s", path, missing, nearName(base, names))
	}
	return &missingError{msg, err}
}

// missingError is a missing data path's error: its message, and the
// error of the open or stat that failed (fs.ErrNotExist).
type missingError struct {
	msg string
	err error
}

func (e *missingError) Error() string { return e.msg }
func (e *missingError) Unwrap() error { return e.err }

// nearName is ` (did you mean "x"?)` for the name x in names nearest to
// base, or "".
func nearName(base string, names []string) string {
	if near := registry.Suggest(base, names); near != "" {
		return fmt.Sprintf(" (did you mean %q?)", near)
	}
	return ""
}
