package luaapi

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/experiment/claims"
	"github.com/fedlab/fedlab/internal/scriptfile"
	"github.com/fedlab/fedlab/rundir"
	lua "github.com/yuin/gopher-lua"
)

var claimCall = declare("fedlab.claim", "a paper's claim about runs, judged when declared and listed in the claims table after the script (docs/lua-api.md, Claims); give one of at_least/at_most, slope_at_least/slope_at_most, order, equals or check", []key{
	{"text", "string", true, "the claim in the paper's words"},
	{"source", "string", false, `where the paper makes it, e.g. "FCO Fig. 3"`},
	{"runs", "run results", true, "the runs the claim is about (from fedlab.run, compare, stages, or a list of them)"},
	{"label", "string", false, "the algorithm (run label) of a threshold, rate or equals claim"},
	{"metric", "metric name", false, "the metric judged (required but for check)"},
	{"at", "integer ≥ 0", false, "the round judged"},
	{"from", "integer ≥ 0", false, "judge every evaluated round from this one on"},
	{"to", "integer ≥ 0", false, "with from: up to this round (default: the last)"},
	{"throughout", "boolean", false, "every evaluated round after round 0 (the common start)"},
	{"at_least", "number", false, "threshold: the metric is ≥ this value"},
	{"at_most", "number", false, "threshold: the metric is ≤ this value"},
	{"slope_at_least", "number", false, "rate: the least-squares slope of log(metric) against the round is ≥ this"},
	{"slope_at_most", "number", false, "rate: the slope is ≤ this (linear convergence at factor q per round: slope ≤ log q)"},
	{"order", "list of labels or lists of labels", false, "ordering: each label (or group of labels) beats every one after it, strictly"},
	{"direction", `"decreasing" or "increasing"`, false, "with order: how the metric runs along the list (required with order)"},
	{"equals", "number, or table { label =, metric =, at = }", false, "within: the metric at round at equals this value, or another run's (mean over its seeds)"},
	{"tol", "number ≥ 0", false, "with equals: the tolerance (required)"},
	{"relative", "boolean", false, "with equals: tol is relative to |target|"},
	{"seeds", `"every", "mean" or "separated"`, false, `how seeds combine: each seed (an order: seed by seed), their mean, or mean ± std on the unfavourable side (default "every")`},
	{"check", "function(runs) → ok, measured", false, "the general form: ok true or false and a short string of the numbers that decided it (ok nil: not evaluated, measured says why)"},
})

var claimRefCall = declare("fedlab.claim equals", "another run's value, the target of fedlab.claim's equals", []key{
	{"label", "string", true, "the run label"},
	{"metric", "metric name", true, "its metric"},
	{"at", "integer ≥ 0", true, "its round"},
})

// fnClaim is fedlab.claim{...}: it judges the claim on its runs now (their
// results are final) and returns the verdict and the measured numbers.
func (in *interp) fnClaim(L *lua.LState) (int, error) {
	f, err := tableArg(L, claimCall)
	if err != nil {
		return 0, err
	}
	c := claims.Claim{Where: in.claimWhere(), Seeds: claims.Seeds(f.str("seeds", string(claims.EverySeed), claims.SeedChoices...)),
		Rounds: claims.Rounds{At: -1, From: -1, To: -1}, Bound: claims.Unbounded}
	c.Text = f.str("text", "")
	c.Source = f.str("source", "")
	c.Label = f.str("label", "")
	c.Metric = f.str("metric", "")
	runsValue := f.get("runs")
	var runs []experiment.Run
	if runsValue != lua.LNil {
		runs, err = in.collect(runsValue, "fedlab.claim: key \"runs\"")
		f.fail(err)
	}
	at, from, to := f.get("at") != lua.LNil, f.get("from") != lua.LNil, f.get("to") != lua.LNil
	throughout := f.boolean("throughout", false)
	switch {
	case btoi(at)+btoi(from)+btoi(throughout) > 1:
		f.fail(errors.New(`fedlab.claim: give one of at, from and throughout`))
	case at:
		c.Rounds.At = f.integer("at", 0, 0)
	case from:
		c.Rounds.From = f.integer("from", 0, 0)
	case throughout:
		c.Rounds.From = 1
	}
	if to {
		if !from && !throughout {
			f.fail(errors.New(`fedlab.claim: key "to" goes with from or throughout`))
		}
		c.Rounds.To = f.integer("to", 0, 0)
	}
	kinds := 0
	bound := func(lo, hi string) claims.Bound {
		b := claims.Unbounded
		if f.get(lo) != lua.LNil {
			b.Min = f.number(lo, 0, math.Inf(-1))
		}
		if f.get(hi) != lua.LNil {
			b.Max = f.number(hi, 0, math.Inf(-1))
		}
		return b
	}
	if b := bound("at_least", "at_most"); !math.IsNaN(b.Min) || !math.IsNaN(b.Max) {
		c.Kind, c.Bound = claims.Threshold, b
		kinds++
	}
	if b := bound("slope_at_least", "slope_at_most"); !math.IsNaN(b.Min) || !math.IsNaN(b.Max) {
		c.Kind, c.Bound = claims.Rate, b
		kinds++
	}
	if items := f.list("order"); items != nil {
		c.Kind = claims.Order
		kinds++
		for i, it := range items {
			switch v := it.(type) {
			case lua.LString:
				c.Groups = append(c.Groups, []string{string(v)})
			case *lua.LTable:
				group, err := list(v, fmt.Sprintf("fedlab.claim: key \"order\" item %d", i+1))
				f.fail(err)
				var labels []string
				for _, g := range group {
					s, ok := g.(lua.LString)
					if !ok {
						f.fail(fmt.Errorf("fedlab.claim: key \"order\" item %d: expected labels (strings), got %s", i+1, typeText(g)))
					}
					labels = append(labels, string(s))
				}
				c.Groups = append(c.Groups, labels)
			default:
				f.fail(fmt.Errorf("fedlab.claim: key \"order\" item %d: expected a label or a list of labels, got %s", i+1, typeText(it)))
			}
		}
		c.Decreasing = f.str("direction", "", "decreasing", "increasing") == "decreasing"
		if f.get("direction") == lua.LNil {
			f.fail(errors.New(`fedlab.claim: key "order" needs key "direction": "decreasing" (the metric is larger for the labels listed first) or "increasing"`))
		}
	} else if f.get("direction") != lua.LNil {
		f.fail(errors.New(`fedlab.claim: key "direction" goes with order`))
	}
	switch v := f.get("equals").(type) {
	case *lua.LNilType:
	case lua.LNumber:
		c.Kind, c.Value = claims.Within, float64(v)
		kinds++
	case *lua.LTable:
		c.Kind = claims.Within
		kinds++
		rf := claimRefCall.read(v)
		c.Other = claims.Ref{Label: rf.str("label", ""), Metric: rf.str("metric", ""), At: rf.integer("at", 0, 0)}
		f.fail(rf.error())
	default:
		f.fail(fmt.Errorf("fedlab.claim: key \"equals\": expected a number or a table { label =, metric =, at = }, got %s", typeText(v)))
	}
	if c.Kind == claims.Within {
		if f.get("tol") == lua.LNil {
			f.fail(errors.New(`fedlab.claim: key "equals" needs key "tol", the tolerance`))
		}
		c.Tol = f.number("tol", 0, 0)
		c.Relative = f.boolean("relative", false)
	} else if f.get("tol") != lua.LNil || f.get("relative") != lua.LNil {
		f.fail(errors.New(`fedlab.claim: keys "tol" and "relative" go with equals`))
	}
	var check *lua.LFunction
	switch v := f.get("check").(type) {
	case *lua.LNilType:
	case *lua.LFunction:
		c.Kind, check = claims.General, v
		kinds++
	default:
		f.fail(fmt.Errorf("fedlab.claim: key \"check\": expected a function(runs) returning ok, measured; got %s", typeText(v)))
	}
	if err := f.error(); err != nil {
		return 0, err
	}
	if kinds != 1 {
		return 0, fmt.Errorf("fedlab.claim: give exactly one of at_least/at_most (threshold), slope_at_least/slope_at_most (rate), order, equals or check; got %d", kinds)
	}
	if check != nil {
		c.Check = in.luaCheck(check, runsValue)
	}
	if err := claims.Validate(c); err != nil {
		return 0, fmt.Errorf("fedlab.claim: %w", err)
	}
	cr := claims.FromRuns(runs)
	var res claims.Result
	if in.dry != nil {
		if err := claims.Check(c, cr); err != nil {
			return 0, fmt.Errorf("fedlab.claim %q: %w", c.Text, err)
		}
		res = claims.Result{Text: c.Text, Source: c.Source, Where: c.Where, Verdict: claims.NotEvaluated, Why: "dry run: nothing was computed"}
		if c.Kind == claims.General {
			in.dryNote("fedlab.claim at %s: %q (check): judged by its function when the runs are computed", c.Where, c.Text)
		} else {
			in.dryNote("fedlab.claim at %s: %q (%s): its runs, metric and rounds exist", c.Where, c.Text, c.Kind)
		}
	} else {
		res = claims.Evaluate(c, cr)
	}
	in.claims = append(in.claims, res)
	L.Push(lua.LString(res.Verdict))
	L.Push(lua.LString(res.Measured + res.Why))
	return 2, nil
}

// luaCheck wraps a script's check function: ok (a boolean, or nil for not
// evaluated) and the measured string; a Lua error makes the claim not
// evaluated, naming the error.
func (in *interp) luaCheck(fn *lua.LFunction, runs lua.LValue) func([]claims.Run) (bool, string, error) {
	return func([]claims.Run) (bool, string, error) {
		L := in.L
		if err := L.CallByParam(lua.P{Fn: fn, NRet: 2, Protect: true}, runs); err != nil {
			msg, _, _ := strings.Cut(in.errorObject(err).Error(), "\nstack traceback:")
			return false, "", fmt.Errorf("the check raised an error: %s", msg)
		}
		ok, measured := L.Get(-2), L.Get(-1)
		L.Pop(2)
		text := ""
		if measured != lua.LNil {
			text = lua.LVAsString(measured)
			if s, isStr := measured.(lua.LString); isStr {
				text = string(s)
			} else if _, isNum := measured.(lua.LNumber); !isNum {
				return false, "", fmt.Errorf("the check returned %s as its measured value: want a string", typeText(measured))
			}
		}
		switch v := ok.(type) {
		case lua.LBool:
			return bool(v), text, nil
		case *lua.LNilType:
			if text == "" {
				text = "the check returned nil without saying why"
			}
			return false, "", errors.New(text)
		}
		return false, "", fmt.Errorf("the check returned %s: want true, false, or nil (not evaluated) and a string", typeText(ok))
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// reportClaims prints the claims table after the script's own output and
// records the verdicts in the run directory (ClaimsFile and the
// manifest); a script without claims prints nothing.
func (in *interp) reportClaims(script string, dir *rundir.Dir) error {
	if err := dir.SetClaims(in.claims); err != nil {
		return err
	}
	if len(in.claims) == 0 {
		return nil
	}
	return claims.Table(in.opts.Stdout, script, in.claims, claimsWidth(in.opts.Width))
}

// claimsWidth is the width of the claims table (0: 100 columns).
func claimsWidth(w int) int {
	if w <= 0 {
		return 100
	}
	return w
}

// replay is what Claims needs to run a stored script again on its run
// directory: the directory and the working directory of its session.
type replay struct{ dir, workDir string }

// Claims judges again the claims of the script stored in the run
// directory dir against the runs stored there, computing and writing
// nothing: the script's copy (rundir.ScriptCopyFile) runs with its
// session's --set arguments (opts.Args and ArgText, given by the caller
// from the manifest) and working directory; its output is discarded, the
// files it writes go to a temporary directory removed afterwards, and a
// run the directory does not hold makes the claims about it not
// evaluated. It returns the script's name and the verdicts.
func Claims(dir string, opts Options) (string, []claims.Result, error) {
	m, ok, err := rundir.ReadManifest(dir)
	switch {
	case err != nil:
		return "", nil, err
	case !ok:
		return "", nil, fmt.Errorf("%s is not a run directory (no %s)", dir, rundir.ManifestFile)
	case m.Invocation == nil || m.Invocation.ScriptCopy == "":
		return "", nil, fmt.Errorf("%s keeps no copy of its script (%s): run the script into it again", dir, rundir.ScriptCopyFile)
	}
	src, err := rundir.ReadFile(dir, rundir.ScriptCopyFile, 0)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(src)
	if hex.EncodeToString(sum[:]) != m.Script.SHA256 {
		return "", nil, fmt.Errorf("%s: its SHA-256 is not the one the manifest records for %s (was it edited?)", filepath.Join(dir, rundir.ScriptCopyFile), filepath.Base(m.Script.Path))
	}
	tmp, err := os.MkdirTemp("", "fedlab-claims-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	opts.Out, opts.Stdout, opts.Quiet, opts.DryRun, opts.Fresh, opts.Update = tmp, io.Discard, true, false, false, false
	opts.replay = &replay{dir: dir, workDir: m.Invocation.WorkDir}
	name := filepath.Base(m.Script.Path)
	_, results, err := runSource(m.Script.Path, src, opts)
	if err != nil && len(results) == 0 {
		return name, nil, err
	}
	return name, results, err
}

// claimWhere is where a claim is declared: the line of the fedlab.claim
// call and, when a function of the script made it, the line that called
// that function ("s.lua:40 via line 72"), so that claims declared by one
// helper stay apart.
func (in *interp) claimWhere() string {
	where := in.where()
	dbg, ok := in.L.GetStack(2)
	if !ok {
		return where
	}
	if _, err := in.L.GetInfo("l", dbg, lua.LNil); err == nil && dbg.CurrentLine > 0 {
		where += fmt.Sprintf(" via line %d", dbg.CurrentLine)
	}
	return where
}

// ListClaims dry-runs the script at path (see Options.DryRun) and returns
// its claims, each not evaluated: their words, sources and places, and
// checks that their labels, metrics and rounds exist.
func ListClaims(path string, opts Options) ([]claims.Result, error) {
	src, err := scriptfile.Read(path)
	if err != nil {
		return nil, err
	}
	opts.DryRun, opts.Out, opts.Stdout, opts.Quiet = true, "", io.Discard, true
	_, results, err := runSource(path, src, opts)
	return results, err
}
