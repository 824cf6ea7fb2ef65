package luaapi

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/rundir"
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

// reserved are the names fedlab keeps in a run directory; a script cannot
// write them, even with --unsafe.
var reserved = rundir.Reserved()

// output resolves a path that fn (e.g. "fedlab.csv") writes. Relative
// paths resolve against the run directory (Options.Out; the current
// directory when runs are kept in memory). Without --unsafe, absolute
// paths and paths that leave the run directory (through ".." or a
// symbolic link) are refused; fedlab's own files in the run directory are
// refused always.
func (in *interp) output(fn, path string) (string, error) {
	base := in.opts.Out
	if base == "" {
		base = "."
	}
	target := path
	if !filepath.IsAbs(path) {
		target = filepath.Join(base, path)
	}
	rel, err := filepath.Rel(base, target)
	inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	if !in.opts.Unsafe {
		switch {
		case filepath.IsAbs(path):
			return "", fmt.Errorf("%s: absolute path %s refused: without --unsafe a script writes only inside its run directory (give a path relative to it, or run with --unsafe)", fn, escape.Quote(path, 200))
		case !inside:
			return "", fmt.Errorf("%s: path %s leaves the run directory: without --unsafe a script writes only inside it (remove the \"..\", or run with --unsafe)", fn, escape.Quote(path, 200))
		case rel == ".":
			return "", fmt.Errorf("%s: path %s names the run directory itself, expected a file name", fn, escape.Quote(path, 200))
		}
		if err := insideAfterLinks(base, target); err != nil {
			return "", fmt.Errorf("%s: path %s %v: without --unsafe a script writes only inside the run directory", fn, escape.Quote(path, 200), err)
		}
	}
	if inside && in.opts.Out != "" {
		first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if slices.Contains(reserved, first) {
			return "", fmt.Errorf("%s: %s is reserved in the run directory (fedlab keeps %s there)", fn, escape.Quote(path, 200), strings.Join(reserved, ", "))
		}
	}
	return target, nil
}

// insideAfterLinks checks that the deepest existing directory on the way
// to target, with symbolic links resolved, is inside base (also resolved).
func insideAfterLinks(base, target string) error {
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return nil // the run directory does not exist yet: nothing in it can be a link
	}
	dir := filepath.Dir(target)
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			rel, err := filepath.Rel(realBase, real)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return fmt.Errorf("leads through a symbolic link to %s", escape.Quote(real, 200))
			}
			return nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}
