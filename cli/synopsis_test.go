package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// definedFlags reads the flags each command defines from this package's
// source: the string literal naming the flag in every fs.Xxx call of the
// command's function (runCmd → run, …).
func definedFlags(t *testing.T) map[string][]string {
	t.Helper()
	commands := map[string]string{"runCmd": "run", "tableCmd": "table", "plotCmd": "plot", "reportCmd": "report", "mergeCmd": "merge", "claimsCmd": "claims"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || commands[fn.Name.Name] == "" {
				continue
			}
			cmd := commands[fn.Name.Name]
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, isIdent := sel.X.(*ast.Ident); !isIdent || id.Name != "fs" {
					return true
				}
				for _, a := range call.Args {
					if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						name, _ := strconv.Unquote(lit.Value)
						if !slices.Contains(out[cmd], name) {
							out[cmd] = append(out[cmd], name)
						}
						break
					}
				}
				return true
			})
		}
	}
	return out
}

// TestSynopsesListEveryFlag: the command synopsis of README.md names every
// flag each command defines, and no flag it does not (the README lacked
// --round, --transpose, --width, --logx, --xlabel, --ylabel and report's
// --out, --script and --x). Each command's help lists its flags from its
// flag set (TestCommandHelp).
func TestSynopsesListEveryFlag(t *testing.T) {
	defined := definedFlags(t)
	if len(defined["run"]) < 10 || len(defined["plot"]) < 15 {
		t.Fatalf("the flag definitions were not found: %v", defined)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(readme), "## The command line")
	if i < 0 {
		t.Fatal("README.md has no section \"The command line\"")
	}
	section := string(readme[i:])
	block := section[strings.Index(section, "```")+3:]
	block = block[:strings.Index(block, "```")]
	flagRe := regexp.MustCompile(`--([a-z][a-z0-9-]*)`)
	for name, text := range map[string]string{"README.md": block} {
		// each command's synopsis: from "fedlab CMD" to the next "fedlab " at a line start
		parts := regexp.MustCompile(`(?m)^\s*fedlab `).Split(text, -1)
		for cmd, flags := range defined {
			var synopsis string
			for _, p := range parts {
				if strings.HasPrefix(p, cmd+" ") {
					synopsis = p
				}
			}
			if synopsis == "" {
				t.Errorf("%s: no synopsis of fedlab %s", name, cmd)
				continue
			}
			var listed []string
			for _, m := range flagRe.FindAllStringSubmatch(synopsis, -1) {
				listed = append(listed, m[1])
			}
			for _, f := range flags {
				if !slices.Contains(listed, f) {
					t.Errorf("%s: the synopsis of fedlab %s lacks --%s", name, cmd, f)
				}
			}
			for _, f := range listed {
				if !slices.Contains(flags, f) {
					t.Errorf("%s: the synopsis of fedlab %s names --%s, which it does not define", name, cmd, f)
				}
			}
		}
	}
}
