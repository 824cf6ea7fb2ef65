package scriptfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadRefusesWhatIsNotABoundedRegularFile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.lua")
	os.WriteFile(ok, []byte("print(1)\n"), 0o644)
	if b, err := Read(ok); err != nil || string(b) != "print(1)\n" {
		t.Fatalf("Read(ok.lua) = %q, %v", b, err)
	}
	big := filepath.Join(dir, "big.lua")
	f, _ := os.Create(big)
	f.Truncate(MaxBytes + 1) // sparse: nothing is written
	f.Close()
	fifo := filepath.Join(dir, "fifo.lua")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "script /dev/zero is not a regular file (a character device); a script is a Lua text file"},
		{dir, "script " + dir + " is a directory, not a file"},
		{fifo, "script " + fifo + " is not a regular file (a named pipe)"},
		{big, "script " + big + " is larger than 16 MiB, the limit for a script"},
	} {
		_, err := Read(c.path) // a named pipe without a writer would block an open
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Read(%s) = %v, want %q", c.path, err, c.want)
		}
	}
}
