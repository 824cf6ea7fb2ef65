package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/internal/filekind"
)

// A run directory is untrusted input: it travels (copied from clusters,
// shared with co-authors, attached to papers), and whoever handled it may
// have planted links, named pipes or huge files in it, or edited its
// manifest. Every read of a file inside a run directory goes through
// OpenFile (or ReadFile), which
//
//   - takes the path inside the directory as plain names (ValidName),
//     checked before anything is joined;
//   - follows no symbolic link at any level below the directory: on Unix
//     every component is opened with openat(2) and O_NOFOLLOW relative to
//     its parent's descriptor, so a component swapped for a link between
//     two checks is refused too (elsewhere, each component is checked with
//     Lstat before the file is opened, and the file opened is compared with
//     the one checked);
//   - opens only regular files, checked before opening (a named pipe, a
//     device, a socket or a directory is refused with a message naming it,
//     and is never opened, so it cannot block) and again on the descriptor;
//   - bounds what it reads: at most the size the manifest recorded for the
//     file, or, for a file whose size is not recorded, MaxUnrecorded bytes
//     (a larger file is refused before it is read).
//
// The directory's own path, as the user gave it, may be a link.

// MaxUnrecorded is the most OpenFile reads of a file whose size the
// manifest does not record (the manifest itself, result files and stored
// optima of directories written before fedlab recorded sizes): 1 GiB, far
// above what fedlab writes for one run.
const MaxUnrecorded = 1 << 30

// RefusedError is a file of a run directory that fedlab does not read: a
// link, not a regular file, larger than its bound, or of another size
// than the manifest recorded.
type RefusedError struct {
	Path string // the file, as the directory path joined with its name
	Why  string
	// Altered: the file's size is not the one the manifest recorded.
	Altered bool
}

// Error names the file and why it is refused.
func (e *RefusedError) Error() string { return e.Path + " " + e.Why }

// File is a file of a run directory opened by OpenFile. Reads end at its
// bound (the recorded size, or MaxUnrecorded with an error past it).
type File struct {
	f        *os.File
	path     string
	size     int64 // the file's size when opened
	limit    int64 // the most Read returns
	recorded bool  // limit is the size the manifest recorded
	read     int64
}

// OpenFile opens the regular file name (slash-separated plain names,
// e.g. "results/KEY.json") inside the run directory dir, following no
// link below dir. size is the file's size as the manifest recorded it, or
// 0 when none is recorded: a file of another size is refused (it was
// altered), and a file with no recorded size is refused if it is larger
// than MaxUnrecorded. A missing file gives an error satisfying
// errors.Is(err, fs.ErrNotExist); a refused one a *RefusedError.
func OpenFile(dir, name string, size int64) (*File, error) {
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if err := ValidName(p); err != nil {
			return nil, &RefusedError{Path: filepath.Join(dir, filepath.FromSlash(name)), Why: "is not read: " + err.Error()}
		}
	}
	f, err := openInside(dir, parts)
	if err != nil {
		return nil, err
	}
	path := f.Name()
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() { // checked before opening too: this is a file swapped in between
		f.Close()
		return nil, notRegular(path, fi.Mode())
	}
	file := &File{f: f, path: path, size: fi.Size(), limit: MaxUnrecorded}
	switch {
	case size > 0 && fi.Size() != size:
		f.Close()
		return nil, &RefusedError{Path: path, Why: fmt.Sprintf("is %d bytes, the manifest recorded %d: it was altered", fi.Size(), size), Altered: true}
	case size > 0:
		file.limit, file.recorded = size, true
	case fi.Size() > MaxUnrecorded:
		f.Close()
		return nil, tooLarge(path)
	}
	return file, nil
}

// ReadFile returns the content of the file name inside dir, read as
// OpenFile reads it.
func ReadFile(dir, name string, size int64) ([]byte, error) {
	f, err := OpenFile(dir, name, size)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Read reads the file up to its bound: the recorded size ends the file
// there; past MaxUnrecorded bytes of a file with no recorded size, Read
// returns a *RefusedError (the file grew after it was opened).
func (f *File) Read(p []byte) (int, error) {
	if left := f.limit - f.read; int64(len(p)) > left {
		if left == 0 {
			if f.recorded {
				return 0, io.EOF
			}
			var one [1]byte
			if n, _ := f.f.Read(one[:]); n > 0 {
				return 0, tooLarge(f.path)
			}
			return 0, io.EOF
		}
		p = p[:left]
	}
	n, err := f.f.Read(p)
	f.read += int64(n)
	return n, err
}

// Rewind starts reading the file again from its beginning.
func (f *File) Rewind() error {
	f.read = 0
	_, err := f.f.Seek(0, io.SeekStart)
	return err
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Size is the file's size when it was opened.
func (f *File) Size() int64 { return f.size }

// ValidName checks that name, taken from a manifest or a result file
// (a run key, a model or result file name), is a plain file name: not
// empty, not "." or "..", at most 255 bytes of UTF-8 without a path
// separator, NUL or control character. It is checked before the name is
// joined to any path.
func ValidName(name string) error {
	switch {
	case name == "":
		return errors.New("an empty name")
	case name == "." || name == "..":
		return fmt.Errorf("%s names a directory, not a file", escape.Quote(name, 40))
	case len(name) > 255:
		return fmt.Errorf("%s is longer than 255 bytes", escape.Quote(name, 40))
	case !utf8.ValidString(name):
		return fmt.Errorf("%s is not valid UTF-8", escape.Quote(name, 40))
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("%s contains a path separator", escape.Quote(name, 40))
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }):
		return fmt.Errorf("%s contains a control character", escape.Quote(name, 40))
	}
	return nil
}

// notRegular refuses a file that is not a regular file.
func notRegular(path string, mode os.FileMode) error {
	return &RefusedError{Path: path, Why: fmt.Sprintf("is %s, not a regular file: fedlab reads only regular files in a run directory; remove it", filekind.Of(mode))}
}

// notDirectory refuses a component that should be a directory.
func notDirectory(path string, mode os.FileMode) error {
	return &RefusedError{Path: path, Why: fmt.Sprintf("is %s, not a directory: fedlab keeps its own files there; remove or rename it", filekind.Of(mode))}
}

// isLink refuses a symbolic link.
func isLink(path string) error {
	target, _ := os.Readlink(path)
	return &RefusedError{Path: path, Why: fmt.Sprintf("is a symbolic link (to %s): fedlab does not follow links inside a run directory; remove the link", escape.Quote(target, 200))}
}

func tooLarge(path string) error {
	return &RefusedError{Path: path, Why: fmt.Sprintf("is larger than %d MiB, the limit for a file whose size the manifest does not record: fedlab does not read it", MaxUnrecorded>>20)}
}
