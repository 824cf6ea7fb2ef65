package plan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fedlab/fedlab/registry"
)

// TestInputPathsResolve: a component's relative input path (a parameter
// declared as a path, whatever its name) resolves against the
// component's directory when written there, against the working directory
// when typed on the command line; an absolute path, another parameter, a
// default not given and a path in one directory only are left as they are
// or resolved without a word; a name that is two different files, one in each directory, is
// refused naming both.
func TestInputPathsResolve(t *testing.T) {
	script, work := t.TempDir(), t.TempDir()
	for _, d := range []string{script, work} {
		if err := os.WriteFile(filepath.Join(d, "both.csv"), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := &registry.Spec{Kind: registry.Dataset, Name: "files", Params: []registry.Param{
		{Name: "path", Type: registry.String, Path: true}, {Name: "test", Type: registry.String, Path: true, Default: ""},
		{Name: "cache", Type: registry.String, Path: true, Default: "cache.bin"}, {Name: "label_path", Type: registry.String, Default: ""}}}
	ip := &InputPaths{WorkDir: work, Typed: []string{"typed.csv"}}
	validated := func(raw map[string]any) registry.Args {
		a, err := spec.Validate(raw)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	given := validated(map[string]any{"path": "train.csv", "test": "typed.csv", "label_path": "y.csv"})
	a, err := ip.resolve(given, script)
	if err != nil {
		t.Fatal(err)
	}
	got := a.Values()
	want := map[string]any{"path": filepath.Join(script, "train.csv"), "test": filepath.Join(work, "typed.csv"), "cache": "cache.bin", "label_path": "y.csv"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if v := given.Values()["path"]; v != "train.csv" {
		t.Errorf("the arguments given were changed: path = %v", v)
	}
	if a, _ := ip.resolve(validated(map[string]any{"path": "/abs", "cache": "c.bin"}), script); a.Values()["path"] != "/abs" || a.Values()["cache"] != filepath.Join(script, "c.bin") {
		t.Errorf("an absolute path and a default path given otherwise: %v", a.Values())
	}
	_, err = ip.resolve(validated(map[string]any{"path": "both.csv"}), script)
	if want := `dataset "files": parameter "path" = "both.csv" names two different files: ` + filepath.Join(script, "both.csv") + " and " + filepath.Join(work, "both.csv") +
		"; written in the script, it resolves against the script's directory, but the other may be the one meant: give an absolute path to choose (see Paths in docs/lua-api.md)"; err == nil || err.Error() != want {
		t.Errorf("ambiguous path: %v\nwant %s", err, want)
	}
}
