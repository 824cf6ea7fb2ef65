//go:build unix

package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openInside opens dir/parts[0]/…/parts[n-1], each component relative to
// its parent's descriptor with O_NOFOLLOW, after checking its type with
// fstatat(AT_SYMLINK_NOFOLLOW): a link, or anything but a directory on the
// way and a regular file at the end, is refused before it is opened.
func openInside(dir string, parts []string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	path := dir
	for i, p := range parts {
		path = filepath.Join(path, p)
		last := i == len(parts)-1
		var st unix.Stat_t
		if err := unix.Fstatat(fd, p, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			unix.Close(fd)
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		mode := fileMode(uint32(st.Mode)) // uint16 on some systems
		switch {
		case mode&os.ModeSymlink != 0:
			unix.Close(fd)
			return nil, isLink(path)
		case !last && !mode.IsDir():
			unix.Close(fd)
			return nil, notDirectory(path, mode)
		case last && !mode.IsRegular():
			unix.Close(fd)
			return nil, notRegular(path, mode)
		}
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK
		if !last {
			flags |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(fd, p, flags, 0)
		unix.Close(fd)
		switch {
		case errors.Is(err, unix.ELOOP):
			return nil, isLink(path)
		case errors.Is(err, unix.ENOTDIR):
			return nil, notDirectory(path, 0)
		case err != nil:
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		fd = next
	}
	return os.NewFile(uintptr(fd), path), nil
}

// fileMode converts a stat(2) mode's type bits.
func fileMode(m uint32) os.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return os.ModeDir
	case unix.S_IFLNK:
		return os.ModeSymlink
	case unix.S_IFIFO:
		return os.ModeNamedPipe
	case unix.S_IFSOCK:
		return os.ModeSocket
	case unix.S_IFCHR:
		return os.ModeDevice | os.ModeCharDevice
	case unix.S_IFBLK:
		return os.ModeDevice
	}
	return os.ModeIrregular
}
