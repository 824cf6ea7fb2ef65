//go:build unix

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalColumns is the width of the terminal f is; ok is false if f is
// not a terminal.
func terminalColumns(f *os.File) (cols int, ok bool) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, false
	}
	return int(ws.Col), true
}
