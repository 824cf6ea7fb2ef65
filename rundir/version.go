package rundir

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
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

// CheckpointBuild identifies the build a checkpoint was written by, which
// must be this one for a run to resume from it: Version, the Go toolchain
// and the platform (a run continues bit for bit only with the same code
// compiled the same way) and, for a build from a modified checkout
// ("+dirty": the revision alone does not name its code), the SHA-256 of
// its executable.
func CheckpointBuild() string { return checkpointBuild() }

var checkpointBuild = sync.OnceValue(func() string {
	return buildID(Version(), runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH, executableSHA256)
})

// buildID composes CheckpointBuild from the version, the toolchain and
// platform, and the executable's digest (read only for a dirty build).
func buildID(version, toolchain string, exe func() (string, error)) string {
	id := version + " " + toolchain
	if strings.HasSuffix(version, "+dirty") {
		sum, err := exe()
		if err != nil { // unique to this process: no other session resumes it
			return fmt.Sprintf("%s exe:unreadable (pid %d, %s)", id, os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))
		}
		id += " exe:" + sum[:12]
	}
	return id
}

// goVersion is the Go toolchain that built the binary.
func goVersion() string { return runtime.Version() }
