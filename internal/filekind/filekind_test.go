//go:build unix

package filekind

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOf names the type of real files, and of a mode it has no name for.
func TestOf(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "p")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip("no unix sockets here:", err)
	}
	defer ln.Close()
	for path, want := range map[string]string{dir: "a directory", file: "a regular file", link: "a symbolic link",
		fifo: "a named pipe", sock: "a socket", "/dev/null": "a character device"} {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := Of(fi.Mode()); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	if got := Of(os.ModeIrregular); got != "a file of mode ?---------" {
		t.Errorf("irregular: %q", got)
	}
}
