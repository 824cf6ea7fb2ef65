// Package htmlreport writes a run directory as one self-contained HTML
// page: the script, its calls with their parameters, a table and figures
// per call, the runs that diverged or failed, the build and the timing.
// Figures are inlined as base64 PNG and there are no external resources,
// so the page opens in any browser offline. All free text (the script,
// labels, errors) is escaped by html/template.
package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/internal/scriptfile"
	"github.com/fedlab/fedlab/present/plot"
	"github.com/fedlab/fedlab/present/report"
	"github.com/fedlab/fedlab/rundir"
	"github.com/fedlab/fedlab/rundir/runfile"
)

// page is what the template renders.
type page struct {
	Name, Dir, Status, Error    string
	Version, Go                 string
	Started, Finished, Duration string
	RunTime                     string
	Script                      string // the script's text, or "" if not found
	ScriptNote                  string // where the script came from, or why it is missing
	Calls                       []callView
	Problems                    []problemRun
	Unmoved                     []problemRun   // runs whose model did not move
	Claims                      *rundir.Claims // the verdicts of the script's claims, as its last session judged them
	Generated                   string
}

// callView is one call of the script.
type callView struct {
	Title     string
	Anchor    string
	Settings  []keyValue
	Params    []paramRow
	Sweep     string // a sweep's grids as text
	Tables    []report.Grid
	Figures   []figure
	Pending   int
	Runs      int      // the call's runs
	Progress  []string // how far its pending runs with a checkpoint got
	PlotError string
}

// keyValue is one setting.
type keyValue struct{ Key, Value string }

// paramRow is one run name of a call with its resolved parameters.
type paramRow struct {
	Name, Algorithm, Params, Seeds string
}

// figure is an inlined PNG.
type figure struct {
	Metric string
	Data   template.URL
}

// problemRun is a run that diverged or failed, or whose model did not
// move (core.Result.Unmoved).
type problemRun struct {
	Call                         int
	Label, Seed, Status, Message string
}

// Options choose what the report shows.
type Options struct {
	// Script is the script file; "" means the path in the manifest,
	// tried as given and relative to the run directory's parent. It is
	// shown only if its SHA-256 matches the manifest's.
	Script string
	// X is the x axis of the figures ("" means round).
	X string
	// SkipRound0 leaves round 0 (the initial point) out of the figures, as
	// fedlab plot --skip-round0 does.
	SkipRound0 bool
	// Invocation is the invocation whose runs are shown (1-based, see
	// rundir.Manifest.Invocations; 0: the last).
	Invocation int
}

// Write renders the run directory dir as HTML to w.
func Write(w io.Writer, dir string, opts Options) error {
	l, err := rundir.LoadInvocation(dir, opts.Invocation)
	if err != nil {
		return err
	}
	m := l.Manifest
	if err := plot.CheckX(opts.X, slices.Concat(l.Calls...)); err != nil {
		return err
	}
	pg := page{Name: scriptName(m), Dir: dir, Status: m.Status, Error: m.Error, Version: m.Fedlab, Go: m.Go,
		Started: m.Started.Format(time.RFC3339), Generated: time.Now().UTC().Format(time.RFC3339)}
	if l.Unfinished != "" && pg.Error == "" {
		pg.Error = l.Unfinished
	}
	if m.Finished != nil {
		pg.Finished = m.Finished.Format(time.RFC3339)
		pg.Duration = m.Finished.Sub(m.Started).Round(time.Second).String()
	}
	pg.Script, pg.ScriptNote = readScript(dir, m, opts.Script)
	if l.Others != "" {
		pg.ScriptNote += "; " + strings.ReplaceAll(l.Others, "\n", " ")
	}
	pg.Claims = m.Claims
	var total time.Duration
	titles := Titles(m)
	sweepOf := map[int][]int{} // call → the calls of its halving sweep
	for _, g := range rundir.HalvingSweeps(m) {
		for _, i := range g {
			sweepOf[i] = g
		}
	}
	pending, planned, progress := 0, 0, []string(nil) // of the rungs of a halving sweep before its last
	for i, runs := range l.Calls {
		cv := callView{Title: fmt.Sprintf("Call %d: %s", i+1, titles[i]), Anchor: fmt.Sprintf("call%d", i+1),
			Settings: settingsOf(m, i), Params: paramsOf(runs)}
		done := slices.DeleteFunc(slices.Clone(runs), func(r experiment.Run) bool { return r.Result == nil })
		cv.Pending, cv.Runs, cv.Progress = len(runs)-len(done), len(runs), l.InProgress[i]
		group := sweepOf[i]
		if group != nil { // one section for the sweep, at its last rung, with the runs of all its rungs
			cv.Pending, cv.Runs, cv.Progress = pending+cv.Pending, planned+cv.Runs, append(progress, cv.Progress...)
			pending, planned, progress = cv.Pending, cv.Runs, cv.Progress
		}
		for _, r := range done {
			total += r.Result.Elapsed
			if r.Result.Status == core.Diverged || r.Result.Status == core.Failed {
				msg := r.Result.Err
				if r.Result.Status == core.Diverged && !strings.Contains(msg, fmt.Sprintf("diverged at round %d", r.Result.DivergedAt)) {
					msg = fmt.Sprintf("diverged at round %d: %s", r.Result.DivergedAt, r.Result.Err)
				}
				pg.Problems = append(pg.Problems, problemRun{Call: i + 1, Label: r.Name(),
					Seed: fmt.Sprint(r.Seed), Status: string(r.Result.Status), Message: msg})
			}
			if r.Result.Unmoved > 0 {
				pg.Unmoved = append(pg.Unmoved, problemRun{Call: i + 1, Label: r.Name(),
					Seed: fmt.Sprint(r.Seed), Status: string(r.Result.Status), Message: core.UnmovedNote(r.Result.Unmoved)})
			}
		}
		var sels []experiment.Selection
		if group != nil {
			if i != group[len(group)-1] {
				continue
			}
			cv.Title, cv.Anchor = rundir.HalvingSweepTitle(m, group), fmt.Sprintf("call%d", group[0]+1)
			cv.Params = paramsOf(l.Calls[group[0]])
			sels = rundir.SelectHalving(m, l.Calls, group)
			pending, planned, progress = 0, 0, nil
		}
		if len(done) > 0 {
			if err := cv.fill(done, m.Calls[i], sels, opts); err != nil {
				return fmt.Errorf("call %d: %w", i+1, err)
			}
		}
		pg.Calls = append(pg.Calls, cv)
	}
	pg.RunTime = total.Round(100 * time.Millisecond).String()
	return tmpl.Execute(w, pg)
}

// sweepWidth is the width a sweep's grids wrap at in the report: a 5 × 5
// grid of a halving sweep (scores "1.0494 ± 0.0049²") is one table.
const sweepWidth = 120

// fill adds the tables and figures of a call's completed runs; a
// halving sweep's selections sels (nil for other calls) span its rungs.
func (cv *callView) fill(runs []experiment.Run, c rundir.Call, sels []experiment.Selection, opts Options) error {
	if len(c.Select) > 0 {
		var b strings.Builder
		if sels == nil {
			sels = experiment.Select(runs, c.Select)
		}
		if err := report.SweepTable(&b, sels, c.Select, report.SweepOptions{Width: sweepWidth}); err != nil {
			return err
		}
		cv.Sweep = b.String()
		runs = experiment.BestRuns(sels)
	}
	grids, err := report.Grids(runs, report.TableOptions{Bold: true})
	if err != nil {
		return err
	}
	cv.Tables = grids
	for _, metric := range experiment.MetricNames(runs) {
		fig, err := plot.NewFigure(runs, plot.Options{Metric: metric, X: opts.X, Width: 16, Height: 9, SkipRound0: opts.SkipRound0,
			Notes: plot.PendingNotes(cv.Pending, cv.Progress)})
		if err != nil {
			cv.PlotError += fmt.Sprintf("%s: %v. ", metric, err)
			continue
		}
		wt, err := fig.WriterTo("png")
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if _, err := wt.WriteTo(&buf); err != nil {
			return err
		}
		cv.Figures = append(cv.Figures, figure{Metric: metric,
			Data: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))})
	}
	return nil
}

// readScript returns the script's text if a file with the manifest's
// SHA-256 is found (the copy kept in the run directory first), and a note
// saying where it came from or why not, and how the session was started.
func readScript(dir string, m *rundir.Manifest, given string) (text, note string) {
	candidates := []string{given}
	if given == "" {
		candidates = []string{filepath.Join(dir, rundir.ScriptCopyFile), m.Script.Path,
			filepath.Join(filepath.Dir(filepath.Clean(dir)), m.Script.Path), filepath.Join(dir, filepath.Base(m.Script.Path))}
	}
	for i, p := range candidates {
		b, err := scriptfile.Read(p)
		if err != nil {
			if given != "" {
				note = err.Error()
			}
			continue
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != m.Script.SHA256 {
			note = fmt.Sprintf("%s has changed since the run (SHA-256 differs from %s); not shown", p, m.Script.SHA256)
			continue
		}
		from := p
		if given == "" && i == 0 {
			from = fmt.Sprintf("%s, the copy kept in the run directory of %s", p, m.Script.Path)
		}
		return string(b), fmt.Sprintf("%s (SHA-256 %s)%s", from, m.Script.SHA256, invocationNote(m.Invocation))
	}
	if note == "" {
		note = fmt.Sprintf("%s not found (SHA-256 %s)", m.Script.Path, m.Script.SHA256)
	}
	return "", note + invocationNote(m.Invocation)
}

// invocationNote is "; run as CMD in DIR" for a manifest that records
// its invocation, or "".
func invocationNote(inv *rundir.Invocation) string {
	if inv == nil || len(inv.CommandLine) == 0 {
		return ""
	}
	return fmt.Sprintf("; run as %s in %s", shellQuote(inv.CommandLine), inv.WorkDir)
}

// shellQuote joins args as a shell would read them back (single quotes
// around any argument that is not plain).
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+@%") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// settingsOf lists the problem and engine settings of a call.
func settingsOf(m *rundir.Manifest, call int) []keyValue {
	flat := callSettings(m, call)
	var out []keyValue
	for k, v := range flat {
		out = append(out, keyValue{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// paramsOf lists each run name of a call with its algorithm, resolved
// parameters and seeds.
func paramsOf(runs []experiment.Run) []paramRow {
	var rows []paramRow
	index := map[string]int{}
	for _, r := range runs {
		i, ok := index[r.Name()]
		if !ok {
			keys := make([]string, 0, len(r.Params))
			for k := range r.Params {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var ps []string
			for _, k := range keys {
				ps = append(ps, k+"="+runfile.ParamText(r.Params[k]))
			}
			i = len(rows)
			index[r.Name()] = i
			rows = append(rows, paramRow{Name: r.Name(), Algorithm: r.Algorithm, Params: strings.Join(ps, " ")})
		}
		if rows[i].Seeds != "" {
			rows[i].Seeds += ", "
		}
		rows[i].Seeds += fmt.Sprint(r.Seed)
	}
	return rows
}

// Save writes the report of dir to path, atomically.
func Save(path, dir string, opts Options) error {
	var buf bytes.Buffer
	if err := Write(&buf, dir, opts); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, buf.Bytes())
}
