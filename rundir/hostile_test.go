//go:build unix

package rundir

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tests of a run directory as untrusted input (issue 30): links, named
// pipes and edited names or values planted in a directory written by
// fedlab. Each fails on the code before the issue: a link to /dev/zero was
// read whole (until memory ran out), a named pipe blocked, a key or model
// name with ".." was joined to a path.

// within runs f and fails the test if it does not return within 10 s (a
// read blocked on a named pipe).
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still blocked after 10 s", what)
	}
}

// storedDir is a directory of a completed session with two runs (with
// models) and one stored optimum.
func storedDir(t *testing.T) (string, []string) {
	t.Helper()
	jobs := sweepJobs(t)[:2]
	dir := t.TempDir()
	d, err := Open(dir, Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	p, id := lassoProblem(t, 0.01)
	p.RefStore = d.ReferenceStore(id)
	if _, err := p.Reference(); err != nil {
		t.Fatal(err)
	}
	_, err = d.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs)
	if _, ferr := d.Finish(err); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	return dir, []string{jobs[0].Key, jobs[1].Key}
}

// plant replaces the file at path by a symbolic link to target, or by a
// named pipe when target is "fifo".
func plant(t *testing.T, path, target string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	var err error
	if target == "fifo" {
		err = syscall.Mkfifo(path, 0o644)
	} else {
		err = os.Symlink(target, path)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestLinksAndPipesAmongResultsAreRefusedNotRead(t *testing.T) {
	for _, c := range []struct{ file, target, want string }{
		{"results/K.json", "/dev/zero", `results/K.json (test_gd seed 1, sweep.lua:3 fedlab.sweep, manifest status done): is a symbolic link (to "/dev/zero"): fedlab does not follow links inside a run directory; remove the link`},
		{"results/K.json", "fifo", `results/K.json (test_gd seed 1, sweep.lua:3 fedlab.sweep, manifest status done): is a named pipe, not a regular file: fedlab reads only regular files in a run directory; remove it`},
		{"models/K.txt", "/dev/zero", `results/K.json (test_gd seed 1, sweep.lua:3 fedlab.sweep, manifest status done): its model file DIR/models/K.txt is a symbolic link (to "/dev/zero"): fedlab does not follow links inside a run directory; remove the link`},
		{"models/K.txt", "fifo", `its model file DIR/models/K.txt is a named pipe, not a regular file`},
	} {
		dir, keys := storedDir(t)
		plant(t, filepath.Join(dir, strings.ReplaceAll(c.file, "K", keys[0])), c.target)
		want := strings.ReplaceAll(strings.ReplaceAll(c.want, "DIR", dir), "K.", keys[0]+".")
		var err error
		within(t, "Load with "+c.file+" → "+c.target, func() { _, err = Load(dir) })
		if !errors.As(err, new(*DamagedError)) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s → %s: Load: %v\nwant a DamagedError with …%s", c.file, c.target, err, want)
		}
		// A resume names it and runs it again (the new result replaces the link or the pipe).
		var notices strings.Builder
		var sum Summary
		within(t, "resume with "+c.file+" → "+c.target, func() {
			_, sum, err = session(t, dir, Options{Notices: &notices}, sweepJobs(t)[:2])
		})
		if err != nil || sum.Ran != 1 || sum.Reused != 1 || !strings.Contains(notices.String(), "; running it again") {
			t.Errorf("%s → %s: resume: %v, %+v, notices %q; want 1 ran, 1 reused", c.file, c.target, err, sum, notices.String())
		}
		if _, err := Load(dir); err != nil {
			t.Errorf("%s → %s: after the resume: %v", c.file, c.target, err)
		}
	}
}

// editResult rewrites the result file of key in dir with edit, and
// removes its checksum and size from the manifest.
func editResult(t *testing.T, dir, key string, edit func(map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, resultPath(key))
	var f map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	edit(f)
	b, _ = json.Marshal(f)
	os.WriteFile(path, b, 0o644)
	editManifest(t, dir, func(m map[string]any) {
		e := m["runs"].(map[string]any)[key].(map[string]any)
		delete(e, "result_sha256")
		delete(e, "result_size")
	})
}

// editManifest rewrites dir's manifest with edit.
func editManifest(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, ManifestFile)
	var m map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, _ = json.Marshal(m)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAModelNamedOutsideTheDirectoryIsNotRead(t *testing.T) {
	dir, keys := storedDir(t)
	// the model's exact copy outside the directory: before, its checksum matched and it was read
	outside := filepath.Join(filepath.Dir(dir), "outside-"+keys[0]+".txt")
	b, _ := os.ReadFile(filepath.Join(dir, modelPath(keys[0])))
	os.WriteFile(outside, b, 0o644)
	defer os.Remove(outside)
	editResult(t, dir, keys[0], func(f map[string]any) { f["model"] = "../outside-" + keys[0] + ".txt" })
	_, err := Load(dir)
	want := `names its model file "../outside-` + keys[0] + `.txt", where fedlab keeps it as models/` + keys[0] + `.txt`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Load: %v\nwant …%s", err, want)
	}
}

func TestAResultOfAnotherSizeThanRecordedIsAltered(t *testing.T) {
	dir, keys := storedDir(t)
	path := filepath.Join(dir, resultPath(keys[1]))
	b, _ := os.ReadFile(path)
	os.WriteFile(path, append(b, ' '), 0o644)
	_, err := Load(dir)
	want := resultPath(keys[1]) + ` (test_gd seed 2, sweep.lua:3 fedlab.sweep, manifest status done): is ` + itoa(len(b)+1) + ` bytes, the manifest recorded ` + itoa(len(b)) + `: it was altered`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Load: %v\nwant …%s", err, want)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestMergeRefusesARunKeyThatLeavesTheDirectory(t *testing.T) {
	root := t.TempDir()
	in, out := filepath.Join(root, "a", "shard"), filepath.Join(root, "o", "merged")
	os.MkdirAll(filepath.Dir(in), 0o755)
	os.MkdirAll(filepath.Dir(out), 0o755)
	src, keys := storedDir(t)
	if err := os.Rename(src, in); err != nil {
		t.Fatal(err)
	}
	const evil = "../../MK/x"
	// the run's result planted where the key leads, as a result of that key
	b, _ := os.ReadFile(filepath.Join(in, resultPath(keys[0])))
	var f map[string]any
	json.Unmarshal(b, &f)
	f["key"], f["model"] = evil, nil
	delete(f, "model_sha256")
	delete(f, "model_size")
	b, _ = json.Marshal(f)
	os.MkdirAll(filepath.Join(root, "a", "MK"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "MK", "x.json"), b, 0o644)
	editManifest(t, in, func(m map[string]any) {
		runs := m["runs"].(map[string]any)
		runs[evil] = runs[keys[0]]
		delete(runs, keys[0])
		e := runs[evil].(map[string]any)
		delete(e, "result_sha256")
		delete(e, "result_size")
		m["calls"].([]any)[0].(map[string]any)["runs"].([]any)[0].(map[string]any)["key"] = evil
	})
	_, err := Merge(out, []string{in})
	want := in + `/manifest.json: run key "../../MK/x" contains a path separator (was the file edited? fedlab writes hexadecimal run keys)`
	if err == nil || err.Error() != want {
		t.Errorf("Merge: %v\nwant %s", err, want)
	}
	for _, p := range []string{filepath.Join(root, "MK"), filepath.Join(root, "o", "MK")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written outside --out", p)
		}
	}
	if _, err := Load(in); err == nil || err.Error() != want {
		t.Errorf("Load: %v\nwant %s", err, want)
	}
}

func TestAPipeAsTheLockDoesNotBlock(t *testing.T) {
	dir, _ := storedDir(t)
	editManifest(t, dir, func(m map[string]any) { m["status"] = StatusRunning })
	plant(t, filepath.Join(dir, LockFile), "fifo")
	want := dir + "/fedlab.lock is a named pipe, not a regular file: fedlab reads only regular files in a run directory; remove it"
	var err error
	within(t, "Load with a pipe as the lock", func() { _, err = Load(dir) })
	if err == nil || err.Error() != want {
		t.Errorf("Load with a pipe as the lock: %v, want %s", err, want)
	}
	// the checks at the lock itself, for a pipe planted after CheckLinks
	within(t, "held", func() { held(filepath.Join(dir, LockFile)) })
	within(t, "readNote", func() { readNote(filepath.Join(dir, LockFile)) })
	within(t, "acquireLock", func() { _, err = acquireLock(dir, script) })
	if err == nil || err.Error() != want {
		t.Errorf("acquireLock of a pipe: %v, want %s", err, want)
	}
}

func TestOwnEntriesOfTheWrongTypeAreRefused(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"results", "DIR/results is a named pipe, not a directory: fedlab keeps its own files there; remove or rename it"},
		{"optima", "DIR/optima is a regular file, not a directory: fedlab keeps its own files there; remove or rename it"},
		{"manifest.json", "DIR/manifest.json is a named pipe, not a regular file: fedlab reads only regular files in a run directory; remove it"},
	} {
		dir, _ := storedDir(t)
		if c.name == "optima" {
			os.RemoveAll(filepath.Join(dir, c.name))
			os.WriteFile(filepath.Join(dir, c.name), []byte("a,b\n"), 0o644)
		} else {
			plant(t, filepath.Join(dir, c.name), "fifo")
		}
		want := strings.ReplaceAll(c.want, "DIR", dir)
		var err error
		within(t, "Load with "+c.name, func() { _, err = Load(dir) })
		if err == nil || err.Error() != want {
			t.Errorf("Load with %s: %v, want %s", c.name, err, want)
		}
		within(t, "Open with "+c.name, func() { _, err = Open(dir, Options{Script: script}) })
		if err == nil || err.Error() != want {
			t.Errorf("Open with %s: %v, want %s", c.name, err, want)
		}
		within(t, "Merge with "+c.name, func() { _, err = Merge(filepath.Join(t.TempDir(), "m"), []string{dir}) })
		if err == nil || err.Error() != want {
			t.Errorf("Merge with %s: %v, want %s", c.name, err, want)
		}
	}
}

// optimumSession opens a session on dir with notices, asks for the
// reference of the test problem (λ = 0.01) and finishes the session.
func optimumSession(t *testing.T, dir string) (*countingStore, string, error) {
	t.Helper()
	var notices strings.Builder
	d, err := Open(dir, Options{Script: script, Notices: &notices})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Finish(nil) //nolint:errcheck
	p, id := lassoProblem(t, 0.01)
	store := &countingStore{ReferenceStore: d.ReferenceStore(id)}
	p.RefStore = store
	within(t, "the reference", func() { _, err = p.Reference() })
	return store, notices.String(), err
}

// editOptimum rewrites dir's only stored optimum with edit and returns
// its path.
func editOptimum(t *testing.T, dir string, edit func(map[string]any)) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, OptimaDir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("optima: %v", files)
	}
	var o map[string]any
	b, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	edit(o)
	b, _ = json.Marshal(o)
	os.WriteFile(files[0], b, 0o644)
	return files[0]
}

func TestAnEditedOptimumIsSolvedAgain(t *testing.T) {
	dir, _ := storedDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, OptimaDir, "*.json"))
	orig, _ := os.ReadFile(files[0])
	var first storedOptimum
	json.Unmarshal(orig, &first)
	path := editOptimum(t, dir, func(o map[string]any) { o["objective"] = o["objective"].(float64) / 2 })
	s, notices, err := optimumSession(t, dir)
	if err != nil || s.stored.Load() != 1 || s.loaded.Load() != 0 {
		t.Fatalf("edited objective: error %v, %d solves, %d read; want 1 solve", err, s.stored.Load(), s.loaded.Load())
	}
	if want := "fedlab: " + path + ": altered: its SHA-256 is "; !strings.HasPrefix(notices, want) || !strings.HasSuffix(notices, "; solving it again\n") {
		t.Errorf("notices %q, want %s… solving it again", notices, want)
	}
	again, _ := os.ReadFile(path)
	var o storedOptimum
	json.Unmarshal(again, &o)
	if o.Objective != first.Objective {
		t.Errorf("objective %v after the solve, want %v", o.Objective, first.Objective)
	}
	// an edit that changes the size is refused before the file is read
	editOptimum(t, dir, func(o map[string]any) { o["iters"] = o["iters"].(float64) + 1000 })
	if s, notices, err = optimumSession(t, dir); err != nil || s.stored.Load() != 1 || !strings.Contains(notices, " bytes, the manifest recorded "+itoa(len(orig))+": it was altered; solving it again") {
		t.Errorf("edited iteration count: error %v, %d solves, notices %q", err, s.stored.Load(), notices)
	}
	// a file with no record (an older fedlab, a killed session) is solved again, with a notice
	editManifest(t, dir, func(m map[string]any) { delete(m, "optima") })
	if s, notices, err = optimumSession(t, dir); err != nil || s.stored.Load() != 1 || !strings.Contains(notices, ": the manifest records no checksum of it") {
		t.Errorf("unrecorded optimum: error %v, %d solves, notices %q", err, s.stored.Load(), notices)
	}
	if s, notices, err = optimumSession(t, dir); err != nil || s.loaded.Load() != 1 || notices != "" {
		t.Errorf("after the solve: error %v, %d read, notices %q; want it read quietly", err, s.loaded.Load(), notices)
	}
}

func TestANegativeIterationCountIsRefused(t *testing.T) {
	dir, _ := storedDir(t)
	path := editOptimum(t, dir, func(o map[string]any) { o["iters"] = -3 })
	recordOptimum(t, dir, filepath.Base(path))
	_, _, err := optimumSession(t, dir)
	if want := path + " is not a stored optimum (iters -3, 3 weights); delete it to solve again"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestLinksAndPipesAmongOptimaAreRefused(t *testing.T) {
	for _, c := range []struct{ target, want string }{
		{"/dev/zero", `is a symbolic link (to "/dev/zero"): fedlab does not follow links inside a run directory; remove the link`},
		{"fifo", "is a named pipe, not a regular file: fedlab reads only regular files in a run directory; remove it"},
	} {
		dir, _ := storedDir(t)
		files, _ := filepath.Glob(filepath.Join(dir, OptimaDir, "*.json"))
		plant(t, files[0], c.target)
		_, err := Merge(filepath.Join(t.TempDir(), "m"), []string{dir})
		if err == nil || err.Error() != files[0]+" "+c.want {
			t.Errorf("merge with optimum → %s: %v, want %s %s", c.target, err, files[0], c.want)
		}
		// a session names it and solves again; the solve replaces it
		s, notices, err := optimumSession(t, dir)
		if want := "fedlab: " + files[0] + " " + c.want + "; solving it again\n"; err != nil || s.stored.Load() != 1 || notices != want {
			t.Errorf("optimum → %s: error %v, %d solves, notices %q; want 1 solve and %q", c.target, err, s.stored.Load(), notices, want)
		}
		if fi, err := os.Lstat(files[0]); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("optimum → %s: not replaced by the solve: %v", c.target, err)
		}
	}
}

func TestNegativeRecordedSizesAreRefused(t *testing.T) {
	dir, keys := storedDir(t)
	editManifest(t, dir, func(m map[string]any) {
		m["runs"].(map[string]any)[keys[0]].(map[string]any)["result_size"] = -1
	})
	want := dir + "/manifest.json: run " + keys[0] + ": result_size -1 is negative (was the file edited? fedlab writes it whole)"
	if _, err := Load(dir); err == nil || err.Error() != want {
		t.Errorf("negative result_size: %v, want %s", err, want)
	}
	dir, keys = storedDir(t)
	editResult(t, dir, keys[1], func(f map[string]any) { f["model_size"] = -5 })
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), resultPath(keys[1])+" (test_gd seed 2, sweep.lua:3 fedlab.sweep, manifest status done): records a negative model size (-5)") {
		t.Errorf("negative model_size: %v", err)
	}
}
