package rundir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/fedlab/fedlab/algorithms"
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// stateJobs plans one run of each of the given registered algorithms
// (seed 1) on test_data: 40 rounds, evaluated every 4.
func stateJobs(t *testing.T, names ...string) []experiment.Job {
	t.Helper()
	return roundJobs(t, 40, []uint64{1}, names...)
}

// roundJobs plans runs of the given algorithms over the seeds on
// test_data, with the given rounds, evaluated every 4.
func roundJobs(t *testing.T, rounds int, seeds []uint64, names ...string) []experiment.Job {
	t.Helper()
	base := testBase(t, rounds)
	var jobs []experiment.Job
	for _, name := range names {
		js, err := experiment.Jobs(base, experiment.AlgoSpec{Name: name, Params: map[string]any{"eta_c": 0.05}}, nil, seeds)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, js...)
	}
	return jobs
}

// interruptAt runs jobs in a session on dir whose context ends when job 0
// reports round k done; it returns the session's notices.
func interruptAt(t *testing.T, dir string, k int, opts Options, jobs []experiment.Job) string {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	js := append([]experiment.Job(nil), jobs...)
	js[0].Settings.Progress = func(done, _ int) {
		if done == k {
			cancel(errors.New("interrupted (test)"))
		}
	}
	var notes bytes.Buffer
	opts.Script, opts.Context, opts.Notices = script, ctx, &notes
	d, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Execute("fedlab.compare", "cmp.lua:3", nil, js)
	var intr *Interrupted
	if !errors.As(err, &intr) {
		t.Fatalf("Execute: %v, want the interruption", err)
	}
	if _, err := d.Finish(err); err != nil {
		t.Fatal(err)
	}
	return notes.String()
}

// resumeSession runs jobs again into dir and returns its notices.
func resumeSession(t *testing.T, dir string, opts Options, jobs []experiment.Job) (Summary, string) {
	t.Helper()
	var notes bytes.Buffer
	opts.Script, opts.Notices = script, &notes
	d, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Execute("fedlab.compare", "cmp.lua:3", nil, jobs)
	sum, ferr := d.Finish(err)
	if err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	return sum, notes.String()
}

// uninterrupted runs jobs in a fresh directory.
func uninterrupted(t *testing.T, jobs []experiment.Job) string {
	t.Helper()
	dir := t.TempDir()
	resumeSession(t, dir, Options{}, jobs)
	return dir
}

func TestAnInterruptedRunResumesFromItsCheckpoint(t *testing.T) {
	jobs := stateJobs(t, "fedavg", "scaffold")
	whole := uninterrupted(t, jobs)
	dir := t.TempDir()
	if notes := interruptAt(t, dir, 10, Options{Jobs: 1}, jobs); notes != "" {
		t.Errorf("notices of the interrupted session: %q", notes)
	}
	m, _, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := m.Checkpoints[jobs[0].Key]
	if len(m.Checkpoints) != 1 || rec == nil || rec.Rounds != 10 || rec.Fedlab != Version() || rec.Build != CheckpointBuild() {
		t.Fatalf("manifest's checkpoints %v, want the first run's after round 10", m.Checkpoints)
	}
	b, err := os.ReadFile(filepath.Join(dir, CheckpointsDir, jobs[0].Key+".10.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := sumOf(b); got.Size != rec.Size || got.SHA256 != rec.SHA256 || rec.Elapsed <= 0 {
		t.Errorf("the checkpoint is %+v, the manifest records %+v", got, rec)
	}
	rec.Elapsed = 1000 // the time before the checkpoint counts in the run's elapsed time
	if err := m.write(dir); err != nil {
		t.Fatal(err)
	}
	sum, notes := resumeSession(t, dir, Options{}, jobs)
	m, _, _ = ReadManifest(dir)
	if e := m.Runs[jobs[0].Key].Elapsed; e < 1000 || e > 1060 {
		t.Errorf("the resumed run's elapsed time is %g s, want 1000 s and this session's", e)
	}
	if e := m.Runs[jobs[1].Key].Elapsed; e > 60 {
		t.Errorf("the other run's elapsed time is %g s", e)
	}
	want := fmt.Sprintf("fedlab: %s: resuming fedavg (seed 1) after round 10 of 40\n", filepath.Join(dir, CheckpointsDir, jobs[0].Key+".10.ckpt"))
	if notes != want {
		t.Errorf("notices of the resume:\n%s\nwant\n%s", notes, want)
	}
	if sum.Ran != 2 {
		t.Errorf("resume: %+v", sum)
	}
	sameDirs(t, whole, dir) // records.csv, results and models equal; no checkpoint left, none in the manifest
}

func TestAPeriodicCheckpointIsInTheManifestAtOnce(t *testing.T) {
	jobs := stateJobs(t, "fedavg")
	dir := t.TempDir()
	seen, files := -1, ""
	js := append([]experiment.Job(nil), jobs...)
	js[0].Settings.Progress = func(done, _ int) {
		if done == 10 { // the checkpoint after round 9 is saved; a kill now would resume from it
			m, _, err := ReadManifest(dir)
			if err == nil && m.Checkpoints[jobs[0].Key] != nil {
				seen = m.Checkpoints[jobs[0].Key].Rounds
			}
			files = fmt.Sprint(listDir(dir, CheckpointsDir))
		}
	}
	resumeSession(t, dir, Options{CheckpointEvery: time.Nanosecond}, js)
	if seen != 9 {
		t.Errorf("at round 10 the manifest recorded a checkpoint after round %d, want 9", seen)
	}
	if want := fmt.Sprint([]string{jobs[0].Key + ".9.ckpt"}); files != want {
		t.Errorf("at round 10 checkpoints/ held %s, want %s (the earlier ones removed)", files, want)
	}
	if left := listDir(dir, CheckpointsDir); len(left) != 0 {
		t.Errorf("checkpoints of a completed run are left: %v", left)
	}
}

// listDir lists the names in dir/sub.
func listDir(dir, sub string) []string {
	entries, _ := os.ReadDir(filepath.Join(dir, sub))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestKeptCheckpointsHoldTheLastRound(t *testing.T) {
	jobs := stateJobs(t, "fedavg")
	dir := t.TempDir()
	resumeSession(t, dir, Options{KeepCheckpoints: true}, jobs)
	m, _, _ := ReadManifest(dir)
	if rec := m.Checkpoints[jobs[0].Key]; rec == nil || rec.Rounds != 40 {
		t.Fatalf("kept checkpoints %v, want one after round 40", m.Checkpoints)
	}
	b, err := ReadFile(dir, checkpointPath(jobs[0].Key, 40), m.Checkpoints[jobs[0].Key].Size)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := core.CheckpointRounds(b, jobs[0].Key); n != 40 || err != nil {
		t.Errorf("CheckpointRounds = %d, %v", n, err)
	}
}

func TestABadCheckpointIsRefusedAndTheRunRecomputed(t *testing.T) {
	jobs := stateJobs(t, "fedavg", "scaffold")
	whole := uninterrupted(t, jobs)
	key := jobs[0].Key
	file := filepath.Join(CheckpointsDir, key+".10.ckpt")
	editManifest := func(dir string, edit func(*CheckpointSum)) {
		m, _, err := ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		edit(m.Checkpoints[key])
		if err := m.write(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		damage func(dir string) string // the notice after the file's path
	}{
		{"altered", func(dir string) string {
			b, _ := os.ReadFile(filepath.Join(dir, file))
			b[len(b)-1] ^= 1
			os.WriteFile(filepath.Join(dir, file), b, 0o644)
			return ": altered: its SHA-256 is "
		}},
		{"truncated", func(dir string) string {
			b, _ := os.ReadFile(filepath.Join(dir, file))
			os.WriteFile(filepath.Join(dir, file), b[:len(b)-3], 0o644)
			return fmt.Sprintf(" is %d bytes, the manifest recorded %d: it was altered", len(b)-3, len(b))
		}},
		{"unrecorded", func(dir string) string {
			m, _, _ := ReadManifest(dir)
			delete(m.Checkpoints, key)
			m.write(dir)
			return ": the manifest records no checksum of it (written by a session that ended before recording it)"
		}},
		{"another build", func(dir string) string {
			forged := Version() + " go1.0 plan9/386"
			editManifest(dir, func(c *CheckpointSum) { c.Build = forged })
			return ": written by another fedlab build (" + forged + ", this is " + CheckpointBuild() + ")"
		}},
		{"a build that recorded no identity", func(dir string) string {
			editManifest(dir, func(c *CheckpointSum) { c.Build = "" })
			return ": written by a fedlab build that did not record its identity (" + Version() + "), this is " + CheckpointBuild()
		}},
		{"another key, consistent record", func(dir string) string {
			b, _ := os.ReadFile(filepath.Join(dir, file))
			b = bytes.Replace(b, []byte(key), []byte(jobs[1].Key), 1)
			os.WriteFile(filepath.Join(dir, file), b, 0o644)
			editManifest(dir, func(c *CheckpointSum) { s := sumOf(b); c.Size, c.SHA256 = s.Size, s.SHA256 })
			return fmt.Sprintf(": checkpoint belongs to run %q, not to this run %q", jobs[1].Key, key)
		}},
		{"missing", func(dir string) string {
			os.Remove(filepath.Join(dir, file))
			return ": missing (the manifest records it)"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			interruptAt(t, dir, 10, Options{Jobs: 1}, jobs)
			want := c.damage(dir)
			_, notes := resumeSession(t, dir, Options{}, jobs)
			prefix := "fedlab: " + filepath.Join(dir, file) + want
			suffix := "; fedavg (seed 1) starts again from round 0\n"
			if !strings.HasPrefix(notes, prefix) || !strings.HasSuffix(notes, suffix) || strings.Count(notes, "\n") != 1 {
				t.Errorf("notices:\n%s\nwant one line starting\n%s\nand ending %q", notes, prefix, suffix)
			}
			sameDirs(t, whole, dir)
		})
	}
}

func TestACheckpointOfAnotherAlgorithmIsRefusedByTheEngine(t *testing.T) {
	jobs := stateJobs(t, "fedavg")
	dir := t.TempDir()
	interruptAt(t, dir, 10, Options{Jobs: 1}, jobs)
	other := stateJobs(t, "scaffold")
	whole := uninterrupted(t, other)
	own := other[0].Key
	// scaffold planned under fedavg's key: the header fits, the fields do not
	other[0].Key = jobs[0].Key
	_, notes := resumeSession(t, dir, Options{Update: true}, other)
	prefix := fmt.Sprintf("fedlab: %s: resuming scaffold (seed 1) after round 10 of 40\nfedlab: %s: cannot resume from the checkpoint: checkpoint: ",
		filepath.Join(dir, CheckpointsDir, jobs[0].Key+".10.ckpt"), filepath.Join(dir, CheckpointsDir, jobs[0].Key+".10.ckpt"))
	if !strings.HasPrefix(notes, prefix) || !strings.HasSuffix(notes, "; scaffold (seed 1) starts again from round 0\n") {
		t.Errorf("notices:\n%s\nwant them to start\n%s", notes, prefix)
	}
	a, _ := os.ReadFile(filepath.Join(whole, RecordsFile))
	b, _ := os.ReadFile(filepath.Join(dir, RecordsFile))
	if a = bytes.ReplaceAll(a, []byte(own), []byte(jobs[0].Key)); !bytes.Equal(a, b) { // the key column aside
		t.Errorf("records of the recomputed run differ:\n%s\n---\n%s", a, b)
	}
}

func TestARunThatCannotCheckpointIsNamedOnce(t *testing.T) {
	jobs := sweepJobs(t)[:2] // test_gd declares no state
	dir := t.TempDir()
	notes := interruptAt(t, dir, 3, Options{Jobs: 2}, jobs)
	want := `fedlab: test_gd (seed 1) cannot be checkpointed: algorithm "test_gd" does not declare its state (core.Stateful): it restarts from round 0; ` +
		"if interrupted, it (and any run like it) starts again from round 0\n"
	if notes != want && notes != strings.Replace(want, "seed 1", "seed 2", 1) {
		t.Errorf("notices:\n%s\nwant\n%s", notes, want)
	}
	if _, err := os.Stat(filepath.Join(dir, CheckpointsDir)); !os.IsNotExist(err) {
		t.Errorf("checkpoints/ of runs that cannot checkpoint: %v", err)
	}
}

// TestACohortResumesFromItsMembersCheckpoints: a cohort interrupted once
// every member has saved a checkpoint resumes each member from its own
// and gives the directory of the run never interrupted.
func TestACohortResumesFromItsMembersCheckpoints(t *testing.T) {
	rounds := 20000
	if testing.Short() {
		rounds = 40 // the interruption comes at round 2 of each member
	}
	jobs := roundJobs(t, rounds, []uint64{1, 2, 3}, "fedavg") // one cohort of three seeds
	cohorts := experiment.Cohorts{MaxState: 1 << 30}
	whole := t.TempDir()
	resumeSession(t, whole, Options{Cohorts: cohorts, Jobs: 3}, jobs)

	// Interrupted once every member has saved a checkpoint (every round):
	// a member that reports round 2 done has saved the checkpoint of round
	// 1 (a round's checkpoint follows its progress report).
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var mu sync.Mutex
	second := map[int]bool{}
	interrupting := append([]experiment.Job(nil), jobs...)
	for i := range interrupting {
		interrupting[i].Settings.Progress = func(done, _ int) {
			mu.Lock()
			defer mu.Unlock()
			if done >= 2 {
				second[i] = true
			}
			if len(second) == len(interrupting) {
				cancel(errors.New("interrupted (test)"))
			}
		}
	}
	d, err := Open(dir, Options{Script: script, Context: ctx, Cohorts: cohorts, Jobs: 3, CheckpointEvery: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Execute("fedlab.compare", "cmp.lua:3", nil, interrupting)
	if _, ferr := d.Finish(err); ferr != nil || err == nil {
		t.Fatalf("the cohort was not interrupted: %v %v", err, ferr)
	}
	m, _, _ := ReadManifest(dir)
	if len(m.Checkpoints) != 3 || len(listDir(dir, CheckpointsDir)) != 3 {
		t.Fatalf("checkpoints %v, files %v: want one per member", m.Checkpoints, listDir(dir, CheckpointsDir))
	}
	_, notes := resumeSession(t, dir, Options{Cohorts: cohorts, Jobs: 3}, jobs)
	if n := strings.Count(notes, ": resuming fedavg (seed "); n != 3 || strings.Count(notes, "\n") != 3 {
		t.Errorf("notices:\n%s\nwant three resumes", notes)
	}
	m, _, _ = ReadManifest(dir)
	for key, e := range m.Runs {
		if e.Cohort != 3 {
			t.Errorf("run %s ran in a cohort of %d, want 3", key, e.Cohort)
		}
	}
	sameDirs(t, whole, dir)
}

func TestLoadSaysHowFarUnfinishedRunsGot(t *testing.T) {
	jobs := stateJobs(t, "fedavg", "scaffold")
	dir := t.TempDir()
	interruptAt(t, dir, 10, Options{Jobs: 1}, jobs)
	l, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(l.InProgress); got != "[[fedavg seed 1 at round 10 of 40]]" {
		t.Errorf("InProgress %s", got)
	}
	file := filepath.Join(dir, CheckpointsDir, jobs[0].Key+".10.ckpt")
	b, _ := os.ReadFile(file)
	b[len(b)-1] ^= 1
	os.WriteFile(file, b, 0o644)
	if l, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(l.InProgress); got != "[[fedavg seed 1 has a checkpoint that a resume refuses (altered)]]" {
		t.Errorf("InProgress of an altered checkpoint %s", got)
	}
}

func TestTheBuildOfACheckpointNamesTheCodeOfADirtyCheckout(t *testing.T) {
	exe := func(sum string) func() (string, error) { return func() (string, error) { return sum, nil } }
	if got, want := buildID("v1.2.0", "go1.26.8 linux/amd64", exe("0123456789abcdef")), "v1.2.0 go1.26.8 linux/amd64"; got != want {
		t.Errorf("a clean build: %q, want %q", got, want)
	}
	a := buildID("(devel) 71c4e80+dirty", "go1.26.8 linux/amd64", exe("aaaaaaaaaaaa0000"))
	b := buildID("(devel) 71c4e80+dirty", "go1.26.8 linux/amd64", exe("bbbbbbbbbbbb0000"))
	if a != "(devel) 71c4e80+dirty go1.26.8 linux/amd64 exe:aaaaaaaaaaaa" || a == b {
		t.Errorf("two dirty builds of one revision: %q and %q, want the executables' digests to tell them apart", a, b)
	}
	if buildID("v1", "go1.26.8 linux/amd64", exe("x")) == buildID("v1", "go1.25.0 linux/amd64", exe("x")) {
		t.Error("two toolchains give one build")
	}
	u := buildID("v1+dirty", "go1.26.8 linux/amd64", func() (string, error) { return "", fs.ErrPermission })
	if !strings.HasPrefix(u, "v1+dirty go1.26.8 linux/amd64 exe:unreadable (pid ") {
		t.Errorf("an unreadable executable: %q", u)
	}
}

// TestMergeKeepsTheFurthestCheckpointOfAPendingRun: merging directories
// keeps, for a run completed in none of them, the checkpoint that got
// furthest, recorded with its SHA-256, and the merged directory resumes
// from it to the uninterrupted records; a run completed in one input keeps
// no checkpoint; a checkpoint altered in an input stops the merge.
func TestMergeKeepsTheFurthestCheckpointOfAPendingRun(t *testing.T) {
	jobs := stateJobs(t, "fedavg")
	key := jobs[0].Key
	whole := uninterrupted(t, jobs)
	a, b := t.TempDir(), t.TempDir()
	interruptAt(t, a, 10, Options{Jobs: 1}, jobs)
	interruptAt(t, b, 20, Options{Jobs: 1}, jobs)

	out := filepath.Join(t.TempDir(), "merged")
	m, err := Merge(out, []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	rec := m.Checkpoints[key]
	if rec == nil || rec.Rounds != 20 || rec.Build != CheckpointBuild() || len(m.Checkpoints) != 1 {
		t.Fatalf("merged checkpoints %v", m.Checkpoints)
	}
	if files := listDir(out, CheckpointsDir); len(files) != 1 || files[0] != key+".20.ckpt" {
		t.Fatalf("merged checkpoint files %v", files)
	}
	data, _ := os.ReadFile(filepath.Join(out, CheckpointsDir, key+".20.ckpt"))
	if sumOf(data).SHA256 != rec.SHA256 {
		t.Errorf("the merged checkpoint's SHA-256 is not the one recorded")
	}
	l, err := Load(out)
	if err != nil || len(l.InProgress) != 1 || len(l.InProgress[0]) != 1 || l.InProgress[0][0] != "fedavg seed 1 at round 20 of 40" {
		t.Errorf("in progress after the merge: %v %v", l, err)
	}
	_, notes := resumeSession(t, out, Options{}, jobs)
	if want := fmt.Sprintf("fedlab: %s: resuming fedavg (seed 1) after round 20 of 40\n", filepath.Join(out, CheckpointsDir, key+".20.ckpt")); notes != want {
		t.Errorf("notices:\n%s\nwant\n%s", notes, want)
	}
	x, _ := os.ReadFile(filepath.Join(whole, RecordsFile))
	y, _ := os.ReadFile(filepath.Join(out, RecordsFile))
	if !bytes.Equal(x, y) {
		t.Errorf("records of the merged and resumed directory differ from the uninterrupted run's:\n%s\n---\n%s", x, y)
	}

	// a run completed in one input keeps no checkpoint in the output,
	// though another input has one
	c := filepath.Join(t.TempDir(), "c")
	if m, err := Merge(c, []string{a, whole}); err != nil || len(m.Checkpoints) != 0 || len(listDir(c, CheckpointsDir)) != 0 {
		t.Errorf("merged a with the completed run: %v, checkpoints %v, files %v", err, m, listDir(c, CheckpointsDir))
	}

	mb, _, _ := ReadManifest(b)
	mb.Checkpoints[key].SHA256 = strings.Repeat("0", 64)
	if err := mb.write(b); err != nil {
		t.Fatal(err)
	}
	_, err = Merge(filepath.Join(t.TempDir(), "m"), []string{b})
	want := fmt.Sprintf("%s: altered: its SHA-256 is %.12s…, the manifest recorded 000000000000…; run the script into %s again (it refuses the checkpoint and continues the run without it), then merge",
		filepath.Join(b, CheckpointsDir, key+".20.ckpt"), rec.SHA256, b)
	if err == nil || err.Error() != want {
		t.Errorf("an altered checkpoint: %v\nwant %s", err, want)
	}
}

// TestCheckpointRoundsSavesEveryNRounds: with the run setting
// checkpoint_rounds = 7 and no time period, a 40-round run's checkpoint in
// the manifest is, at each round, the one after the last multiple of 7
// before it (none before round 7), and the run's key does not change with
// the setting.
func TestCheckpointRoundsSavesEveryNRounds(t *testing.T) {
	jobs := stateJobs(t, "fedavg")
	js := append([]experiment.Job(nil), jobs...)
	js[0].Settings.CheckpointRounds = 7
	base := js[0].Base
	base.Settings.CheckpointRounds = 7
	planned, err := experiment.Jobs(base, experiment.AlgoSpec{Name: "fedavg", Params: map[string]any{"eta_c": 0.05}}, nil, []uint64{1})
	if err != nil || len(planned) != 1 || planned[0].Key != jobs[0].Key {
		t.Fatalf("planned with checkpoint_rounds = 7: %v, key %s, want the key %s", err, planned[0].Key, jobs[0].Key)
	}
	dir := t.TempDir()
	var seen []int
	js[0].Settings.Progress = func(done, _ int) {
		m, _, err := ReadManifest(dir)
		rounds := 0
		if err == nil && m.Checkpoints[jobs[0].Key] != nil {
			rounds = m.Checkpoints[jobs[0].Key].Rounds
		}
		seen = append(seen, rounds)
	}
	resumeSession(t, dir, Options{}, js)
	var want []int
	for done := 1; done <= 40; done++ {
		want = append(want, (done-1)/7*7) // Progress(done) comes before round done's checkpoint
	}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("checkpoint recorded after each round:\n%v\nwant\n%v", seen, want)
	}
}
