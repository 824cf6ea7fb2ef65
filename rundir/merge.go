package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/rundir/runfile"
)

// Merge combines run directories of one script — typically the shards of
// a sweep — into out, a new directory (or an empty one): a run directory,
// one of the inputs or another, is refused with a *MergeIntoInput error
// and left unchanged, since the merged manifest would replace its
// invocations, status and timing. The directories
// must come from the same script (equal SHA-256) and agree on the calls
// they planned (a shard stops at the first call with runs of other shards,
// so shards have the same calls). Every completed run found in any
// directory is copied into out with its model; runs completed nowhere stay
// pending, to be run by running the script into out. The manifest of out
// has the status "merged" and lists the directories merged; records.csv
// is rewritten. Merge holds the lock of out and of every input it can
// lock: a directory in use by a session is refused (*Busy). Merge merges
// each input's last invocation (see MergeInvocation).
func Merge(out string, inputs []string) (*Manifest, error) {
	return MergeInvocation(out, inputs, 0)
}

// MergeInvocation is Merge of invocation n (1-based, as Manifest.Select
// takes it; 0: the last) of every input. Runs of the inputs' other
// invocations are not merged; MergeNotice names the inputs that hold some.
func MergeInvocation(out string, inputs []string, n int) (*Manifest, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	if fi, err := os.Stat(out); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("the output %s is a file: merge writes a run directory; give a directory name with --out", out)
	}
	for i, in := range inputs {
		for _, earlier := range inputs[:i] {
			if samePath(in, earlier) {
				return nil, fmt.Errorf("%s is given twice (as %s and %s): give each shard's directory once", in, earlier, in)
			}
		}
	}
	for _, dir := range append([]string{out}, inputs...) {
		if err := CheckLinks(dir); err != nil {
			return nil, err
		}
	}
	if slices.ContainsFunc(inputs, func(in string) bool { return samePath(in, out) }) {
		return nil, &MergeIntoInput{Out: out, Input: true}
	}
	if _, ok, err := ReadManifest(out); err != nil {
		return nil, err
	} else if ok {
		return nil, &MergeIntoInput{Out: out}
	}
	var ms []*Manifest
	var all []int // the number of invocations of each input
	for _, in := range inputs {
		m, ok, err := ReadManifest(in)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%s is not a run directory: it has no %s", in, ManifestFile)
		}
		all = append(all, len(m.Invocations()))
		if m, err = m.Select(n); err != nil {
			return nil, fmt.Errorf("%s: %v", in, err)
		}
		ms = append(ms, m)
	}
	for i, m := range ms {
		if m.Script.SHA256 != ms[0].Script.SHA256 {
			return nil, fmt.Errorf("%s and %s come from different scripts (sha256 %.12s… and %.12s…)",
				inputs[0], inputs[i], ms[0].Script.SHA256, m.Script.SHA256)
		}
	}
	calls, err := agreeingCalls(inputs, ms)
	if err != nil {
		return nil, err
	}
	merged := newManifest(ms[0].Script, StatusMerged)
	merged.Fedlab, merged.Go, merged.Calls = ms[0].Fedlab, ms[0].Go, calls
	merged.MergedFrom = inputs
	merged.Float32Kernels, merged.notice = kernelClasses(inputs, ms)
	if note := otherInvocations(inputs, all, n); note != "" {
		merged.notice = strings.TrimPrefix(merged.notice+"\n"+note, "\n")
	}
	for _, m := range ms {
		if m.Started.Before(merged.Started) {
			merged.Started = m.Started
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	// No session may write the output or an input while they are merged.
	for i, dir := range append([]string{out}, inputs...) {
		if i > 0 && samePath(dir, out) { // locked as the output
			continue
		}
		l, err := acquireLock(dir, ms[0].Script)
		var busy *Busy
		switch {
		case errors.As(err, &busy) || (err != nil && dir == out):
			return nil, err
		case err != nil:
			continue // an input nobody can write (read-only): no session writes it either
		}
		defer l.release()
	}
	for _, c := range calls {
		for _, cr := range c.Runs {
			if merged.Runs[cr.Key] != nil {
				continue
			}
			e, err := mergeRun(out, cr.Key, inputs, ms)
			if err != nil {
				return nil, err
			}
			merged.Runs[cr.Key] = e
			if err := mergeCheckpoint(out, cr.Key, e.Status == Pending, inputs, ms, merged); err != nil {
				return nil, err
			}
		}
	}
	if merged.Optima, err = mergeOptima(out, inputs, ms); err != nil {
		return nil, err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	merged.Finished = &now
	if err := merged.write(out); err != nil {
		return nil, err
	}
	l, err := Load(out)
	if err != nil {
		return nil, err
	}
	return merged, runfile.WriteRecords(filepath.Join(out, RecordsFile), l.Calls, rungColumn(l.Manifest.Calls[:len(l.Calls)]))
}

// MergeNotice is what Merge has to tell the user about the merged
// directories, "" if nothing: that they computed with float32 kernels of
// different classes (see kernelClasses).
func (m *Manifest) MergeNotice() string { return m.notice }

// kernelClasses returns the class of float32 kernels the merged directory
// records (the inputs' classes joined by "+", "" if none recorded one)
// and, when the inputs' classes differ, a notice naming each class and its
// directories: records of float32 runs computed with different classes
// may differ in the last bits, so the merged records are not one
// machine's. A directory that records no class computed no float32
// product and agrees with every class.
func kernelClasses(inputs []string, ms []*Manifest) (class, notice string) {
	var classes []string
	dirs := map[string][]string{}
	for i, m := range ms {
		for _, c := range strings.Split(m.Float32Kernels, "+") {
			if c == "" {
				continue
			}
			if dirs[c] == nil {
				classes = append(classes, c)
			}
			if !slices.Contains(dirs[c], inputs[i]) {
				dirs[c] = append(dirs[c], inputs[i])
			}
		}
	}
	slices.Sort(classes)
	if len(classes) < 2 {
		return strings.Join(classes, "+"), ""
	}
	var parts []string
	for _, c := range classes {
		parts = append(parts, fmt.Sprintf("%s in %s", escape.Quote(c, 20), escape.Names(dirs[c], 200)))
	}
	return strings.Join(classes, "+"), fmt.Sprintf("the directories computed with float32 kernels of different classes (%s): "+
		"their float32 runs may differ in the last bits from the same runs computed with the other class, so the merged records are not one machine's; "+
		"to get one machine's records, run every shard on CPUs of one class (\"fma\": x86-64 with AVX2 and FMA)", strings.Join(parts, "; "))
}

// otherInvocations says which inputs hold the runs of invocations other
// than the merged one (n, 0: the last), "" if none: merge leaves those
// runs out, and --invocation N merges another.
func otherInvocations(inputs []string, all []int, n int) string {
	var with []string
	most := 0
	for i, k := range all {
		if k > 1 {
			with = append(with, fmt.Sprintf("%s (%d)", inputs[i], k))
			most = max(most, k)
		}
	}
	if len(with) == 0 {
		return ""
	}
	which := "the last invocation"
	if n > 0 {
		which = fmt.Sprintf("invocation %d", n)
	}
	return fmt.Sprintf("some directories store the runs of several invocations (other --set values): %s; "+
		"merge took %s of each and left the runs of the others out (they stay in the inputs); "+
		"merge another into a new directory with --invocation N (1 to %d, in the order they were run)",
		escape.Line(strings.Join(with, ", ")), which, most)
}

// MergeIntoInput is Merge's refusal of an output that is a run directory
// already: one of the inputs (Input), or another.
type MergeIntoInput struct {
	Out   string
	Input bool
}

func (e *MergeIntoInput) Error() string {
	what := "is one of the directories to merge"
	if !e.Input {
		what = "is a run directory already"
	}
	return fmt.Sprintf("--out %s %s: merge writes a new directory (its manifest would replace the invocations, status and timing of %s); nothing was changed; give --out a new directory, e.g. %s",
		e.Out, what, e.Out, filepath.Clean(e.Out)+"-merged")
}

// agreeingCalls returns the longest list of calls after checking that the
// others are prefixes of it (same functions, places and run keys).
func agreeingCalls(inputs []string, ms []*Manifest) ([]Call, error) {
	longest := 0
	for i, m := range ms {
		if len(m.Calls) > len(ms[longest].Calls) {
			longest = i
		}
	}
	calls := ms[longest].Calls
	for i, m := range ms {
		for c, call := range m.Calls {
			want := calls[c]
			same := call.Function == want.Function && call.Where == want.Where && len(call.Runs) == len(want.Runs)
			for r := 0; same && r < len(call.Runs); r++ {
				same = call.Runs[r].Key == want.Runs[r].Key
			}
			if !same {
				return nil, fmt.Errorf("%s and %s disagree on call %d (%s): were they run with the same fedlab?",
					inputs[i], inputs[longest], c+1, want.Where)
			}
		}
	}
	return calls, nil
}

// mergeRun finds the best stored result of key among the inputs (done or
// diverged before failed), copies its files into out, and returns its
// manifest entry (pending if no input completed it).
func mergeRun(out, key string, inputs []string, ms []*Manifest) (*Entry, error) {
	var entry *Entry
	from := -1
	var best stored
	for i, in := range inputs {
		if e := ms[i].Runs[key]; e != nil && entry == nil {
			entry = &Entry{Identity: e.Identity, Status: Pending}
		}
		e := ms[i].Runs[key]
		st, problem, err := load(in, key, e.resultSum())
		if err != nil {
			return nil, err
		}
		if problem != "" && (problem != resultMissing || e != nil && e.Result != "") {
			return nil, fmt.Errorf("%s: %s (its manifest lists the run as %s); run the script into %s again to recompute it, then merge",
				filepath.Join(in, resultPath(key)), problem, e.Status, in)
		}
		if problem == "" && (from < 0 || best.res.Status == core.Failed && st.res.Status != core.Failed) {
			from, best = i, st
		}
	}
	if entry == nil {
		return nil, fmt.Errorf("run %s has no manifest entry in %v", key, inputs)
	}
	if from < 0 {
		return entry, nil
	}
	files := []string{resultPath(key)}
	entry.Result, entry.ResultSHA256, entry.ResultSize = resultPath(key), best.sum.SHA256, best.sum.Size
	if best.res.Model != nil {
		files = append(files, modelPath(key))
		entry.Model = modelPath(key)
	}
	if !samePath(inputs[from], out) {
		for i, f := range files {
			want := best.sum
			if i > 0 {
				want = best.model
			}
			b, err := ReadFile(inputs[from], f, want.Size)
			if err != nil {
				return nil, err
			}
			if got := sumOf(b); want.SHA256 != "" && got.SHA256 != want.SHA256 {
				return nil, fmt.Errorf("%s changed while it was merged (SHA-256 %.12s…, verified as %.12s…); merge again", filepath.Join(inputs[from], filepath.FromSlash(f)), got.SHA256, want.SHA256)
			}
			if err := atomicfile.WriteBytes(filepath.Join(out, filepath.FromSlash(f)), b); err != nil {
				return nil, err
			}
		}
	}
	entry.Status, entry.DivergedAt, entry.Unmoved, entry.Error = string(best.res.Status), best.res.DivergedAt, best.res.Unmoved, best.res.Err
	entry.Started, entry.Finished, entry.Elapsed, entry.Cohort = &best.started, &best.finished, best.res.Elapsed.Seconds(), best.res.Cohort
	return entry, nil
}

// mergeCheckpoint keeps, for a run completed in no input (pending), the
// checkpoint that got furthest among those the inputs record, verified
// against its record and copied into out with it, so that running the
// script into out continues the run; a checkpoint an input records but
// that is missing or altered stops the merge, like a damaged result. Other
// checkpoint files of the run in out (older, or of a run now completed)
// are removed.
func mergeCheckpoint(out, key string, pending bool, inputs []string, ms []*Manifest, merged *Manifest) error {
	var best *CheckpointSum
	var data []byte
	for i, in := range inputs {
		rec := ms[i].Checkpoints[key]
		if !pending || rec == nil || best != nil && rec.Rounds <= best.Rounds {
			continue
		}
		name := checkpointPath(key, rec.Rounds)
		b, err := ReadFile(in, name, rec.Size)
		if err == nil && sumOf(b).SHA256 != rec.SHA256 {
			err = fmt.Errorf("altered: its SHA-256 is %.12s…, the manifest recorded %.12s…", sumOf(b).SHA256, rec.SHA256)
		}
		if err == nil {
			err = core.VerifyCheckpoint(b, key)
		}
		if err != nil {
			return fmt.Errorf("%s: %v; run the script into %s again (it refuses the checkpoint and continues the run without it), then merge",
				filepath.Join(in, filepath.FromSlash(name)), err, in)
		}
		best, data = rec, b
	}
	keep := ""
	if best != nil {
		keep = checkpointPath(key, best.Rounds)
		if err := atomicfile.WriteBytes(filepath.Join(out, filepath.FromSlash(keep)), data); err != nil {
			return err
		}
		if merged.Checkpoints == nil {
			merged.Checkpoints = map[string]*CheckpointSum{}
		}
		merged.Checkpoints[key] = best
	}
	for _, name := range checkpointFilesIn(out, key) {
		if name == keep {
			continue
		}
		if err := os.Remove(filepath.Join(out, filepath.FromSlash(name))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// samePath reports whether two paths name the same directory.
func samePath(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(ia, ib)
}
