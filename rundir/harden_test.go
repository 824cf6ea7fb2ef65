package rundir

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestASecondSessionIsRefusedWhileTheFirstHoldsTheDirectory(t *testing.T) {
	jobs := sweepJobs(t)
	dir := t.TempDir()
	first, err := Open(dir, Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs[:2]); err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{Script: Script{Path: "other.lua", SHA256: strings.Repeat("b", 64)}})
	var busy *Busy
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "is in use by another fedlab session (pid ") || !strings.Contains(err.Error(), "script sweep.lua") {
		t.Fatalf("second session: %v", err)
	}
	if _, err := first.Finish(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock file left after Finish: %v", err)
	}
	if _, _, err := session(t, dir, Options{}, jobs[:2]); err != nil {
		t.Errorf("a session after the first ended: %v", err)
	}
}

func TestTheSecondOfTwoNewSessionsIsRefusedAtItsFirstWrite(t *testing.T) {
	jobs := sweepJobs(t)
	dir := filepath.Join(t.TempDir(), "new")
	a, err := Open(dir, Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir, Options{Script: Script{Path: "other.lua", SHA256: strings.Repeat("b", 64)}})
	if err != nil {
		t.Fatal(err) // the directory does not exist yet: nothing to lock
	}
	if _, err := a.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs[:2]); err != nil {
		t.Fatal(err)
	}
	var busy *Busy
	if _, err := b.Execute("fedlab.sweep", "other.lua:3", rules, jobs[2:4]); !errors.As(err, &busy) {
		t.Errorf("second new session: %v", err)
	}
	a.Finish(nil)
}

func TestPruningKeepsAnotherScriptsRuns(t *testing.T) {
	jobs := sweepJobs(t)
	dir := t.TempDir()
	if _, _, err := session(t, dir, Options{}, jobs[:2]); err != nil {
		t.Fatal(err)
	}
	other := Script{Path: "other.lua", SHA256: strings.Repeat("b", 64)}
	_, err := Open(dir, Options{Script: other})
	if err == nil || !strings.Contains(err.Error(), "holds the runs of another script, sweep.lua") {
		t.Fatalf("another script without --update: %v", err)
	}
	if _, _, err := session(t, dir, Options{Script: other, Update: true}, jobs[2:4]); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs[:4] {
		if _, problem, _ := load(dir, j.Key, FileSum{}); problem != "" {
			t.Errorf("run %s lost", j.Key)
		}
	}
	// the same script's next version prunes its own earlier runs only
	if _, _, err := session(t, dir, Options{Script: Script{Path: "other.lua", SHA256: strings.Repeat("c", 64)}, Update: true}, jobs[3:4]); err != nil {
		t.Fatal(err)
	}
	for i, j := range jobs[:4] {
		_, problem, _ := load(dir, j.Key, FileSum{})
		if ok, want := problem == "", i != 2; ok != want {
			t.Errorf("run %d stored %v, want %v", i, ok, want)
		}
	}
}

func TestAnInterruptedSessionKeepsItsCompletedRunsAndResumes(t *testing.T) {
	jobs := sweepJobs(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	d, err := Open(dir, Options{Script: script, Context: ctx, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs[:2]); err != nil {
		t.Fatal(err)
	}
	cancel(errors.New("interrupted (test)"))
	_, err = d.Execute("fedlab.sweep", "sweep.lua:4", rules, jobs[2:])
	var intr *Interrupted
	if !errors.As(err, &intr) || intr.Error() != "sweep.lua:4: interrupted (test)" {
		t.Fatalf("Execute after the cancel: %v", err)
	}
	sum, err := d.Finish(err)
	if err != nil {
		t.Fatal(err)
	}
	m, _, _ := ReadManifest(dir)
	if m.Status != StatusInterrupted || sum.Status != StatusInterrupted || !strings.Contains(m.Error, "interrupted (test)") {
		t.Errorf("manifest %s (%q), summary %s", m.Status, m.Error, sum.Status)
	}
	if sum.Runs-sum.Pending != 2 {
		t.Errorf("kept %d runs, want 2: %+v", sum.Runs-sum.Pending, sum)
	}
	_, sum, err = session(t, dir, Options{}, jobs)
	if err != nil || sum.Reused != 2 || sum.Ran != len(jobs)-2 {
		t.Errorf("resume: %+v %v", sum, err)
	}
}

func TestAlteredModelsAndRecordsAreRunAgain(t *testing.T) {
	jobs := sweepJobs(t)[:2]
	dir := t.TempDir()
	if _, _, err := session(t, dir, Options{}, jobs); err != nil {
		t.Fatal(err)
	}
	// a model value changed, still a valid model file
	mpath := filepath.Join(dir, modelPath(jobs[0].Key))
	b, _ := os.ReadFile(mpath)
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines[i] = "12345"
			break
		}
	}
	os.WriteFile(mpath, []byte(strings.Join(lines, "\n")), 0o644)
	// a record value changed, still valid JSON
	rpath := filepath.Join(dir, resultPath(jobs[1].Key))
	var f resultFile
	b, _ = os.ReadFile(rpath)
	json.Unmarshal(b, &f)
	f.Records[0].Values[0] += 1
	b, _ = json.Marshal(f)
	os.WriteFile(rpath, b, 0o644)
	if _, sum, _ := session(t, dir, Options{}, jobs); sum.Ran != 2 || sum.Reused != 0 {
		t.Errorf("after altering both runs: %+v, want both run again", sum)
	}
	if _, sum, _ := session(t, dir, Options{}, jobs); sum.Reused != 2 {
		t.Errorf("the rewritten runs are not reused: %+v", sum)
	}
}

func TestAnotherBuildsRunsNeedUpdate(t *testing.T) {
	jobs := sweepJobs(t)[:2]
	dir := t.TempDir()
	if _, _, err := session(t, dir, Options{}, jobs); err != nil {
		t.Fatal(err)
	}
	m, _, _ := ReadManifest(dir)
	m.Fedlab = "v0.0.1 0123456789abcdef"
	if err := m.write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{Script: script}); err == nil || !strings.Contains(err.Error(), "another fedlab build (v0.0.1 0123456789abcdef") {
		t.Fatalf("another build: %v", err)
	}
	if _, sum, err := session(t, dir, Options{Update: true}, jobs); err != nil || sum.Reused != 2 {
		t.Errorf("--update: %+v %v", sum, err)
	}
}

func TestMergeRefusesADirectoryInUse(t *testing.T) {
	jobs := sweepJobs(t)
	dir := t.TempDir()
	d, err := Open(dir, Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Execute("fedlab.sweep", "sweep.lua:3", rules, jobs[:2]); err != nil {
		t.Fatal(err)
	}
	var busy *Busy
	if _, err := Merge(filepath.Join(t.TempDir(), "merged"), []string{dir}); !errors.As(err, &busy) {
		t.Errorf("merging a directory in use: %v", err)
	}
	d.Finish(nil)
	if _, err := Merge(filepath.Join(t.TempDir(), "merged"), []string{dir}); err != nil {
		t.Errorf("merging after the session ended: %v", err)
	}
}

func TestVersionIdentifiesTheBuild(t *testing.T) {
	v := Version()
	if !strings.Contains(v, " exe:") && !regexp.MustCompile(` [0-9a-f]{40}`).MatchString(v) {
		t.Errorf("Version() = %q names neither a VCS revision nor the executable's digest", v)
	}
	if Version() != v {
		t.Error("Version changes between calls")
	}
}
