// Package layers holds the tests of the package layers documented in
// docs/architecture.md ("Package layers"): the module's import graph, as
// `go list` reports it, against them (every package belongs to one
// documented layer, and no package imports one of a layer above its own),
// and the path of a checkpoint, a rung state and a result from the call
// that executes them to the run directory (trace_test.go).
package layers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is the import path prefix of the module's packages.
const module = "github.com/fedlab/fedlab/"

// doc is the document that declares the layers, from this directory.
var doc = filepath.Join("..", "..", "docs", "architecture.md")

// layer is one documented layer: its number and its package patterns
// ("core", or "internal/…" for every package under internal/).
type layer struct {
	n        int
	patterns []string
}

// pkg is a package of the module and the module's packages it imports
// (paths relative to the module).
type pkg struct {
	path    string
	imports []string
}

var (
	item    = regexp.MustCompile(`^(\d+)\. (.*)$`)
	pattern = regexp.MustCompile("`([a-z0-9/…]+)`")
)

// readLayers parses the numbered list of the section "## Package layers":
// each item `N. `pkg`, `dir/…` — description` declares layer N; only the
// backquoted names before the dash are patterns.
func readLayers(r io.Reader) ([]layer, error) {
	var out []layer
	in := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Package layers"
			continue
		}
		m := item.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		var n int
		fmt.Sscan(m[1], &n)
		if n != len(out)+1 {
			return nil, fmt.Errorf("layer %d follows layer %d: number the layers 1, 2, … from the bottom", n, len(out))
		}
		names, _, ok := strings.Cut(m[2], " — ")
		if !ok {
			return nil, fmt.Errorf("layer %d: %q has no \" — \" between its packages and its description", n, line)
		}
		l := layer{n: n}
		for _, p := range pattern.FindAllStringSubmatch(names, -1) {
			l.patterns = append(l.patterns, p[1])
		}
		if len(l.patterns) == 0 {
			return nil, fmt.Errorf("layer %d names no package", n)
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, errors.New(`no numbered list under "## Package layers"`)
	}
	return out, sc.Err()
}

// matches reports whether the package path (relative to the module)
// matches pattern: equal to it, or under it when it ends in "/…".
func matches(pattern, path string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/…"); ok {
		return strings.HasPrefix(path, dir+"/")
	}
	return path == pattern
}

// check returns every violation of the layers by the packages: a package
// in no layer or in two, an import of a package of a higher layer, and a
// pattern that matches no package (a stale line of the document).
func check(layers []layer, pkgs []pkg) []string {
	var bad []string
	of := map[string]int{}
	used := map[string]bool{}
	for _, p := range pkgs {
		var in []int
		for _, l := range layers {
			for _, pat := range l.patterns {
				if matches(pat, p.path) {
					in = append(in, l.n)
					used[pat] = true
				}
			}
		}
		switch len(in) {
		case 0:
			bad = append(bad, fmt.Sprintf("package %s is in no layer: add it to the list under \"Package layers\" in docs/architecture.md", p.path))
		case 1:
			of[p.path] = in[0]
		default:
			bad = append(bad, fmt.Sprintf("package %s is in layers %v: name it in one", p.path, in))
		}
	}
	for _, p := range pkgs {
		for _, imp := range p.imports {
			if li, ok := of[imp]; ok && li > of[p.path] && of[p.path] > 0 {
				bad = append(bad, fmt.Sprintf("package %s (layer %d) imports %s (layer %d): a package may import only its own layer or those below", p.path, of[p.path], imp, li))
			}
		}
	}
	for _, l := range layers {
		for _, pat := range l.patterns {
			if !used[pat] {
				bad = append(bad, fmt.Sprintf("layer %d names %s, which matches no package", l.n, pat))
			}
		}
	}
	return bad
}

// listPackages runs `go list -json=ImportPath,Imports ./...` at the
// module's root and returns its packages with their imports of the
// module's packages (test files' imports left out: a test may import a
// helper of any layer). Naming the two fields spares go list the others
// (staleness among them): half its CPU time.
func listPackages(t *testing.T) []pkg {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages: %v", err)
	}
	cmd := exec.Command(goBin, "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -json=ImportPath,Imports ./...: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list -json: %v", err)
		}
		rel, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			t.Fatalf("go list listed %s, outside the module %s", p.ImportPath, module)
		}
		q := pkg{path: rel}
		for _, imp := range p.Imports {
			if r, ok := strings.CutPrefix(imp, module); ok {
				q.imports = append(q.imports, r)
			}
		}
		pkgs = append(pkgs, q)
	}
	return pkgs
}

// TestNoPackageImportsALayerAboveIt checks the module's import graph
// against the layers of docs/architecture.md.
func TestNoPackageImportsALayerAboveIt(t *testing.T) {
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	layers, err := readLayers(f)
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	pkgs := listPackages(t)
	if len(pkgs) < 30 {
		t.Fatalf("go list found %d packages, expected the module's 40 or so", len(pkgs))
	}
	for _, msg := range check(layers, pkgs) {
		t.Error(msg)
	}
}

// TestLayerViolationsAreReported feeds the checker a document and a graph
// with each kind of mistake and checks the messages.
func TestLayerViolationsAreReported(t *testing.T) {
	text := "## Other\n1. `x` — not this section\n\n## Package layers\n\n" +
		"1. `internal/…`, `sched` — leaves\n2. `core`, `gone` — the engine\n3. `plan` — plans\n\n## Next\n"
	layers, err := readLayers(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 3 || !slices.Equal(layers[0].patterns, []string{"internal/…", "sched"}) || !slices.Equal(layers[1].patterns, []string{"core", "gone"}) {
		t.Fatalf("layers %+v, expected internal/… and sched, core and gone, plan", layers)
	}
	got := check(layers, []pkg{
		{path: "internal/budget", imports: []string{"core"}},
		{path: "sched"},
		{path: "core", imports: []string{"sched", "internal/budget"}},
		{path: "plan", imports: []string{"core"}},
		{path: "newpkg", imports: []string{"core"}},
	})
	want := []string{
		`package newpkg is in no layer: add it to the list under "Package layers" in docs/architecture.md`,
		"package internal/budget (layer 1) imports core (layer 2): a package may import only its own layer or those below",
		"layer 2 names gone, which matches no package",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nexpected:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, bad := range []string{"## Package layers\n2. `core` — skipped one\n", "## Package layers\n1. `core` the engine\n", "## Package layers\n"} {
		if _, err := readLayers(strings.NewReader(bad)); err == nil {
			t.Errorf("readLayers(%q) accepted a malformed list", bad)
		}
	}
}
