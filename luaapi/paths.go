package luaapi

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/fedlab/fedlab/registry"
)

// inputArgs returns the arguments of a dataset with its relative input
// paths (String parameters named path or dir, or ending in _path or _dir)
// resolved: a path typed on the command line (a --set value, see
// fromCommandLine) against the working directory, as every command-line
// tool does; a path written in the script against dir, the script's
// directory, so that a script finds its data files next to it wherever it
// is run from. A relative path that names two different existing files,
// one in each directory, is an error naming both. The identity of runs
// keeps the paths as written. Other components' arguments are returned
// unchanged.
func (in *interp) inputArgs(spec *registry.Spec, raw map[string]any, dir string) (map[string]any, error) {
	if spec.Kind != registry.Dataset || dir == "" {
		return raw, nil
	}
	var out map[string]any
	for _, p := range spec.Params {
		s, ok := raw[p.Name].(string)
		input := p.Name == "path" || p.Name == "dir" || strings.HasSuffix(p.Name, "_path") || strings.HasSuffix(p.Name, "_dir")
		if !ok || !input || s == "" || filepath.IsAbs(s) {
			continue
		}
		typed := in.fromCommandLine(s)
		base, other := dir, in.workDir
		if typed {
			base, other = in.workDir, dir
		}
		path := filepath.Join(base, s)
		if err := unambiguous(path, filepath.Join(other, s), typed); err != nil {
			return nil, fmt.Errorf("%s: parameter %q = %q %w", spec.Title(), p.Name, s, err)
		}
		if out == nil {
			out = maps.Clone(raw)
		}
		out[p.Name] = path
	}
	if out == nil {
		return raw, nil
	}
	return out, nil
}

// fromCommandLine reports whether s is the value of a --set argument as
// typed: a path the user typed, to resolve against the working directory.
func (in *interp) fromCommandLine(s string) bool {
	for k, v := range in.opts.Args {
		if v == s || (in.opts.ArgText != nil && unquote(in.opts.ArgText[k]) == s) {
			return true
		}
	}
	return false
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
