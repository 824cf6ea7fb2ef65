package luaapi

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/rundir"
)

// inputPaths returns how the script's datasets resolve their relative
// input paths (plan.InputPaths): a path written in the script against
// its directory (a dataset's plan.Component.Dir); one typed on the
// command line, the value of a --set argument as given or unquoted,
// against the working directory.
func (in *interp) inputPaths() *plan.InputPaths {
	ip := &plan.InputPaths{WorkDir: in.workDir}
	for _, k := range slices.Sorted(maps.Keys(in.opts.Args)) {
		if s, ok := in.opts.Args[k].(string); ok {
			ip.Typed = append(ip.Typed, s)
		}
		if in.opts.ArgText != nil {
			ip.Typed = append(ip.Typed, unquote(in.opts.ArgText[k]))
		}
	}
	return ip
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
