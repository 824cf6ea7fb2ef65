package rundir

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// Version is fedlab's version as the Go toolchain stamped it into the
// binary: the module version ("(devel)" for a local build), followed by the
// VCS revision and "+dirty" when the build recorded them. A build without
// a revision (built with -buildvcs=false, or by go run) is identified by
// the SHA-256 of its executable instead ("exe:" and 12 hex digits): Go
// builds are reproducible, so the same source gives the same digest.
func Version() string { return version() }

var version = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev != "":
		v += " " + rev
		if dirty {
			v += "+dirty"
		}
	default:
		if sum, err := executableSHA256(); err == nil {
			v += " exe:" + sum[:12]
		}
	}
	return v
})

// executableSHA256 is the hex SHA-256 of the running executable.
func executableSHA256() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return readerSHA256(f)
}

// goVersion is the Go toolchain that built the binary.
func goVersion() string { return runtime.Version() }
