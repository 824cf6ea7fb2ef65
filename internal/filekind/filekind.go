// Package filekind names the type of a file in messages: "a named pipe",
// "a directory", ...
package filekind

import "os"

// Of names the type of a file of mode m: "a symbolic link", "a directory",
// "a regular file", "a character device", "a block device", "a named
// pipe", "a socket", or "a file of mode …" for any other.
func Of(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "a file of mode " + m.String()
}
