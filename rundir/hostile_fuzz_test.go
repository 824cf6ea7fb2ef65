//go:build unix

package rundir

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// hostileEntries are where FuzzHostileRunDir plants things: every level
// of the directory (K0, K1 and OPT stand for the runs' keys and the
// optimum's file name).
var hostileEntries = []string{ManifestFile, LockFile, ResultsDir, ModelsDir, OptimaDir, "results/K0.json", "models/K0.txt",
	"optima/OPT", "results/K1.json", "models/K1.txt", ScriptCopyFile, RecordsFile}

// FuzzHostileRunDir: a run directory written by fedlab, then handled by
// someone hostile: a run key of the manifest replaced by any string, a
// recorded size replaced by any number, and at every level links (to
// /dev/zero, to a valid result outside the directory, to the directory's
// parent), named pipes, garbage files and directories planted as the fuzz
// bytes say. Load, Merge and reading the stored optimum must each end,
// within 10 s, in a correct read or a clean error: no Go failure text, no
// result read from outside the directory, no file written outside the
// directory and the merge output.
func FuzzHostileRunDir(f *testing.F) {
	f.Add("", []byte{}, int64(0))
	f.Add("../../MK/x", []byte{0, 0, 0, 0, 0, 1}, int64(0))
	f.Add("", []byte{0, 0, 0, 0, 0, 2, 1}, int64(-1))
	f.Add("", []byte{0, 0, 0, 0, 0, 3, 3, 3}, int64(1<<40))
	f.Add("..", []byte{2, 0, 4}, int64(5))
	f.Add("a\x00b", []byte{0, 2, 0, 5, 6}, int64(0))
	f.Add("", []byte{0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6}, int64(0))
	tmpl, keys := hostileTemplate(f)
	f.Fuzz(func(t *testing.T, key string, plan []byte, size int64) {
		root := t.TempDir()
		dir, out, outside := filepath.Join(root, "run"), filepath.Join(root, "out"), filepath.Join(root, "outside.json")
		if err := os.CopyFS(dir, os.DirFS(tmpl)); err != nil {
			t.Fatal(err)
		}
		opt, _ := filepath.Glob(filepath.Join(dir, OptimaDir, "*.json"))
		name := func(e string) string {
			e = strings.NewReplacer("K0", keys[0], "K1", keys[1], "OPT", filepath.Base(opt[0])).Replace(e)
			return filepath.Join(dir, filepath.FromSlash(e))
		}
		// outside: a valid result of K0 whose metric says where it came from
		b, _ := os.ReadFile(name("results/K0.json"))
		os.WriteFile(outside, []byte(strings.ReplaceAll(string(b), `"test_objective"`, `"outside"`)), 0o644)
		editManifestRaw(dir, func(m map[string]any) {
			runs := m["runs"].(map[string]any)
			if key != "" {
				runs[key] = runs[keys[0]]
				delete(runs, keys[0])
				m["calls"].([]any)[0].(map[string]any)["runs"].([]any)[0].(map[string]any)["key"] = key
			}
			if size != 0 {
				runs[keys[1]].(map[string]any)["result_size"] = size
			}
		})
		if len(plan) > 2*len(hostileEntries) {
			plan = plan[:2*len(hostileEntries)]
		}
		for i, a := range plan {
			p := name(hostileEntries[i%len(hostileEntries)])
			if fi, err := os.Lstat(filepath.Dir(p)); err != nil || !fi.IsDir() {
				continue // os.RemoveAll would open a planted pipe and block
			}
			if a%7 != 0 {
				os.RemoveAll(p)
			}
			switch a % 7 {
			case 1:
				os.Symlink("/dev/zero", p)
			case 2:
				syscall.Mkfifo(p, 0o644)
			case 3:
				os.Symlink(outside, p)
			case 4:
				os.Symlink("..", p)
			case 5:
				os.WriteFile(p, plan, 0o644)
			case 6:
				os.Mkdir(p, 0o755)
			}
		}
		before := entriesOutside(root)
		var errs []error
		var l *Loaded
		var err error
		within(t, "Load", func() { l, err = Load(dir) })
		errs = append(errs, err)
		if l != nil {
			for _, runs := range l.Calls {
				for _, r := range runs {
					if r.Result != nil && slices.Contains(r.Result.Metrics, "outside") {
						t.Fatalf("Load read the result outside the directory (run %s)", r.Key)
					}
				}
			}
		}
		within(t, "Merge", func() { _, err = Merge(out, []string{dir}) })
		errs = append(errs, err)
		within(t, "the stored optimum", func() {
			d, err := Open(dir, Options{Script: script})
			if err != nil {
				errs = append(errs, err)
				return
			}
			defer d.Finish(nil) //nolint:errcheck
			p, id := lassoProblem(t, 0.01)
			p.RefStore = d.ReferenceStore(id)
			_, err = p.Reference()
			errs = append(errs, err)
		})
		for _, err := range errs {
			if err == nil {
				continue
			}
			for _, bad := range []string{"runtime error", "goroutine ", "panic", "nil pointer", "index out of range", "internal error"} {
				if strings.Contains(err.Error(), bad) {
					t.Fatalf("Go failure text %q in: %v", bad, err)
				}
			}
		}
		if after := entriesOutside(root); !slices.Equal(before, after) {
			t.Fatalf("files written outside the directory and the output: before %v, after %v", before, after)
		}
	})
}

// entriesOutside lists what root holds besides run/ and out/.
func entriesOutside(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		if rel == "run" || rel == "out" {
			return filepath.SkipDir
		}
		if err == nil {
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// hostileTemplate writes the template directory: a completed session
// with two runs (with models) and one stored optimum.
func hostileTemplate(f *testing.F) (string, []string) {
	dir := f.TempDir()
	jobs := sweepJobs(f)[:2]
	d, err := Open(dir, Options{Script: script, Source: []byte("-- script\n")})
	if err != nil {
		f.Fatal(err)
	}
	p, id := lassoProblem(f, 0.01)
	p.RefStore = d.ReferenceStore(id)
	if _, err := p.Reference(); err != nil {
		f.Fatal(err)
	}
	_, err = d.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs)
	if _, ferr := d.Finish(err); err != nil || ferr != nil {
		f.Fatal(err, ferr)
	}
	return dir, []string{jobs[0].Key, jobs[1].Key}
}

// editManifestRaw rewrites dir's manifest with edit.
func editManifestRaw(dir string, edit func(map[string]any)) {
	path := filepath.Join(dir, ManifestFile)
	var m map[string]any
	b, _ := os.ReadFile(path)
	if json.Unmarshal(b, &m) != nil {
		return
	}
	edit(m)
	b, _ = json.Marshal(m)
	os.WriteFile(path, b, 0o644)
}
