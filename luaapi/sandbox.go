package luaapi

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/rundir"

	lua "github.com/yuin/gopher-lua"
)

// unsafeGlobals are base-library functions that reach the file system or
// load modules; they are removed unless Options.Unsafe.
var unsafeGlobals = []string{"dofile", "loadfile", "require", "module"}

// newState opens a Lua state with the safe libraries only (base, table,
// string, math), plus os, io and package if opts.Unsafe. print writes to
// opts.Stdout.
func newState(opts Options) *lua.LState {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	libs := []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}}
	if opts.Unsafe {
		libs = append(libs, []struct {
			name string
			open lua.LGFunction
		}{{lua.LoadLibName, lua.OpenPackage}, {lua.OsLibName, lua.OpenOs}, {lua.IoLibName, lua.OpenIo}}...)
	}
	for _, lib := range libs {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	L.SetGlobal("_printregs", lua.LNil)
	if !opts.Unsafe {
		for _, name := range unsafeGlobals {
			L.SetGlobal(name, lua.LNil)
		}
	}
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		parts := make([]string, L.GetTop())
		for i := range parts {
			parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
		}
		fmt.Fprintln(opts.Stdout, strings.Join(parts, "\t"))
		return 0
	}))
	return L
}

// reserved are the names fedlab keeps in a run directory; a script cannot
// write them, even with --unsafe.
var reserved = []string{rundir.ManifestFile, rundir.RecordsFile, rundir.ResultsDir, rundir.ModelsDir, rundir.LockFile}

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

// inputArgs returns the arguments of a dataset with its relative input
// paths (String parameters named path or dir, or ending in _path or _dir)
// joined to dir, the script's directory: a script finds its data files
// next to it wherever it is run from. The identity of runs keeps the paths
// as written. Other components' arguments are returned unchanged.
func inputArgs(spec *registry.Spec, raw map[string]any, dir string) map[string]any {
	if spec.Kind != registry.Dataset || dir == "" {
		return raw
	}
	var out map[string]any
	for _, p := range spec.Params {
		s, ok := raw[p.Name].(string)
		input := p.Name == "path" || p.Name == "dir" || strings.HasSuffix(p.Name, "_path") || strings.HasSuffix(p.Name, "_dir")
		if !ok || !input || s == "" || filepath.IsAbs(s) {
			continue
		}
		if out == nil {
			out = maps.Clone(raw)
		}
		out[p.Name] = filepath.Join(dir, s)
	}
	if out == nil {
		return raw
	}
	return out
}
