package cli

import (
	"io"
	"os"
	"strconv"
)

// Widths a terminal table may take: narrower cannot hold a table's rules
// and a number, wider is not a terminal.
const (
	minWidth     = 20
	maxWidth     = 1000
	defaultWidth = 100
)

// terminalWidth is the width tables written to w fit in: $COLUMNS when it
// is a number in [minWidth, maxWidth], else the terminal's width when w is
// one, else defaultWidth.
func terminalWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= minWidth && n <= maxWidth {
		return n
	}
	if f, ok := w.(*os.File); ok {
		if cols, ok := terminalColumns(f); ok && cols >= minWidth {
			return min(cols, maxWidth)
		}
	}
	return defaultWidth
}
