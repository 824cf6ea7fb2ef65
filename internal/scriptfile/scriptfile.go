// Package scriptfile reads experiment scripts: regular files of bounded
// size, so that a device, a pipe or a huge file named as a script is
// refused before it is read.
package scriptfile

import (
	"fmt"
	"io"
	"os"

	"github.com/fedlab/fedlab/internal/filekind"
)

// MaxBytes is the largest script fedlab reads: 16 MiB, far above any
// experiment script (the largest in scripts/ is a few KiB).
const MaxBytes = 16 << 20

// Read returns the content of the script at path. It refuses anything but
// a regular file (a directory, a device such as /dev/zero, a named pipe)
// and files larger than MaxBytes, without reading them.
func Read(path string) ([]byte, error) {
	fi, err := os.Stat(path) // before opening: opening a named pipe would block
	if pe, ok := err.(*os.PathError); ok {
		return nil, fmt.Errorf("script %s: %w", path, pe.Err)
	} else if err != nil {
		return nil, err
	}
	if err := check(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil { // the file opened, in case path changed since
		return nil, err
	}
	if err := check(path, fi); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBytes {
		return nil, tooLarge(path)
	}
	return b, nil
}

// check refuses what is not a regular file of at most MaxBytes.
func check(path string, fi os.FileInfo) error {
	switch {
	case fi.IsDir():
		return fmt.Errorf("script %s is a directory, not a file", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("script %s is not a regular file (%s); a script is a Lua text file", path, filekind.Of(fi.Mode()))
	case fi.Size() > MaxBytes:
		return tooLarge(path)
	}
	return nil
}

func tooLarge(path string) error {
	return fmt.Errorf("script %s is larger than %d MiB, the limit for a script; a script is a Lua text file (data goes in data files)", path, MaxBytes>>20)
}
