//go:build !unix

package cli

import "os"

// terminalColumns does not query the console on systems without unix
// ioctls: tables take $COLUMNS or the default width.
func terminalColumns(*os.File) (int, bool) { return 0, false }
