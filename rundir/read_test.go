package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidNameAcceptsPlainNamesOnly(t *testing.T) {
	for _, ok := range []string{"3f2a9c01d4e5b6a7", "a.json", "é-ü_1", strings.Repeat("k", 255)} {
		if err := ValidName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for name, want := range map[string]string{
		"":                       "an empty name",
		".":                      `"." names a directory, not a file`,
		"..":                     `".." names a directory, not a file`,
		"../../MK/x":             `"../../MK/x" contains a path separator`,
		`a\b`:                    `"a\\b" contains a path separator`,
		"a\x00b":                 `"a\x00b" contains a control character`,
		"a\nb":                   `"a\nb" contains a control character`,
		"a\u0085b":               `"a\u0085b" contains a control character`,
		"a\xffb":                 `"a\xffb" is not valid UTF-8`,
		strings.Repeat("k", 256): "is longer than 255 bytes",
	} {
		if err := ValidName(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", name, err, want)
		}
	}
}

// TestUnrecordedSizesAreCapped: a file with no recorded size larger than
// MaxUnrecorded is refused before it is read (a sparse file: no disk
// used), one with a recorded size is read up to that size only.
func TestUnrecordedSizesAreCapped(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxUnrecorded + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadFile(dir, "big.json", 0)
	var refused *RefusedError
	want := big + " is larger than 1024 MiB, the limit for a file whose size the manifest does not record: fedlab does not read it"
	if !errors.As(err, &refused) || err.Error() != want {
		t.Errorf("unrecorded: %v, want %s", err, want)
	}
	os.WriteFile(filepath.Join(dir, "small"), []byte("0123456789"), 0o644)
	if b, err := ReadFile(dir, "small", 10); err != nil || string(b) != "0123456789" {
		t.Errorf("recorded 10: %q, %v", b, err)
	}
	if _, err := ReadFile(dir, "small", 4); !errors.As(err, &refused) || !refused.Altered ||
		err.Error() != filepath.Join(dir, "small")+" is 10 bytes, the manifest recorded 4: it was altered" {
		t.Errorf("recorded 4: %v", err)
	}
	if _, err := ReadFile(dir, "../small", 0); !errors.As(err, &refused) || !strings.Contains(err.Error(), `is not read: ".." names a directory, not a file`) {
		t.Errorf("..: %v", err)
	}
	if _, err := ReadFile(dir, "missing", 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v, want a not-exist error", err)
	}
}
