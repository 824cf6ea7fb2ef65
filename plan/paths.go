package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/fedlab/fedlab/registry"
)

// InputPaths says how a component's relative input paths (its parameters
// declared as paths, registry.Param.Path) resolve when it is built
// (Builder.Paths): a path written in the script (or program)
// resolves against the component's Dir, so that a script finds its data
// files next to it wherever it is run from; a path typed on the command
// line (one of Typed) resolves against WorkDir, as every command-line tool
// does. A relative path that names two different existing files, one in
// each directory, is an error naming both. The identity of runs keeps the
// paths as written.
type InputPaths struct {
	WorkDir string   // the working directory
	Typed   []string // the values typed on the command line (fedlab run --set)
}

// resolve returns the validated arguments a of a component with its
// relative input paths resolved (dir is the component's Dir).
func (ip *InputPaths) resolve(a registry.Args, dir string) (registry.Args, error) {
	return a.WithPaths(func(p registry.Param, s string) (string, error) {
		if s == "" || filepath.IsAbs(s) {
			return s, nil
		}
		typed := slices.Contains(ip.Typed, s)
		base, other := dir, ip.WorkDir
		if typed {
			base, other = ip.WorkDir, dir
		}
		path := filepath.Join(base, s)
		if err := unambiguous(path, filepath.Join(other, s), typed); err != nil {
			return "", fmt.Errorf("%s: parameter %q = %q %w", a.Spec().Title(), p.Name, s, err)
		}
		return path, nil
	})
}

// unambiguous refuses a relative path whose resolution, chosen, and the
// same name in the other directory, other, are two different existing
// files (or directories): the user may mean either.
func unambiguous(chosen, other string, typed bool) error {
	a, errA := os.Stat(chosen)
	b, errB := os.Stat(other)
	if errA != nil || errB != nil || os.SameFile(a, b) {
		return nil
	}
	why := "written in the script, it resolves against the script's directory"
	if typed {
		why = "typed on the command line (--set), it resolves against the working directory"
	}
	return fmt.Errorf("names two different files: %s and %s; %s, but the other may be the one meant: give an absolute path to choose (see Paths in docs/lua-api.md)",
		chosen, other, why)
}
