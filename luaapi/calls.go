package luaapi

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// key declares one key of a call table: its name, the type of value it
// takes (as the reference shows it) and a one-line description.
type key struct {
	Name     string
	Type     string
	Required bool
	Doc      string
}

// callTable declares a table of named arguments given to a fedlab function
// (fedlab.run{...}, the options of fedlab.table(runs, {...}), one stage of
// fedlab.stages, ...), the way the registry declares a component's
// parameters. Every call table is read by the same strict decoder (read):
// an unknown key is reported with the call, a "did you mean" and the valid
// keys, and all mistakes of one table are reported together.
//
// To give a function a new key, add it to the function's declaration here
// and read it with the getters of fields; reading a key that is not
// declared is a programming error (a panic, reported as an internal
// error, caught by TestEveryCallTableRejectsUnknownKeys).
type callTable struct {
	Name  string // as in messages: "fedlab.run", "fedlab.table" (its options table)
	Doc   string // one line
	Keys  []key
	Items string // what the table's list part holds ("" when it has none)
}

// callTables lists every declared call table, in reference order.
var callTables []*callTable

// declare registers a call table.
func declare(name, doc string, keys ...[]key) *callTable {
	c := &callTable{Name: name, Doc: doc}
	for _, ks := range keys {
		c.Keys = append(c.Keys, ks...)
	}
	callTables = append(callTables, c)
	return c
}

// withItems declares the table's list part.
func (c *callTable) withItems(what string) *callTable {
	c.Items = what
	return c
}

// names lists the declared keys in declaration order.
func (c *callTable) names() []string {
	out := make([]string, len(c.Keys))
	for i, k := range c.Keys {
		out[i] = k.Name
	}
	return out
}

// key returns the declaration of name.
func (c *callTable) key(name string) (key, bool) {
	i := slices.IndexFunc(c.Keys, func(k key) bool { return k.Name == name })
	if i < 0 {
		return key{}, false
	}
	return c.Keys[i], true
}

// read checks the keys of t against the declaration: every key a declared
// name (a list part only if the table has Items), required keys present.
// The returned fields read the values; their errors, and these, are
// collected and reported together by fields.error.
func (c *callTable) read(t *lua.LTable) *fields {
	f := &fields{call: c, t: t}
	var keys []string
	positional := false
	t.ForEach(func(k, _ lua.LValue) {
		switch s := k.(type) {
		case lua.LString:
			keys = append(keys, string(s))
		default:
			if c.Items == "" && !positional {
				positional = true
				f.fail(fmt.Errorf("%s: arguments are named (key = value), got the positional key %s; valid keys: %s",
					c.Name, keyText(k), strings.Join(c.names(), ", ")))
			}
		}
	})
	slices.Sort(keys)
	for _, k := range keys {
		if _, ok := c.key(k); !ok {
			f.fail(c.unknown(k))
		}
	}
	for _, k := range c.Keys {
		if k.Required && t.RawGetString(k.Name) == lua.LNil {
			f.fail(fmt.Errorf("%s: missing required key %q (%s)", c.Name, k.Name, k.Doc))
		}
	}
	return f
}

// readAs is read for a nested table that messages name as name (e.g.
// "fedlab.stages: stage 2").
func (c *callTable) readAs(name string, t *lua.LTable) *fields {
	f := c.read(t)
	for i, err := range f.errs {
		f.errs[i] = errors.New(name + strings.TrimPrefix(err.Error(), c.Name))
	}
	f.name = name
	return f
}

// unknown is the error for an undeclared key.
func (c *callTable) unknown(k string) error {
	return fmt.Errorf("%s: unknown key %q%s; valid keys: %s", c.Name, k, registry.DidYouMean(k, c.names()), strings.Join(c.names(), ", "))
}

// Keys shared by several calls.
var (
	problemKey  = key{"problem", "problem", true, "the problem, from fedlab.problem"}
	settingKeys = []key{
		problemKey,
		{"rounds", "integer ≥ 0", true, "number of rounds"},
		{"clients_per_round", "integer ≥ 0", false, "clients sampled per round (0: all)"},
		{"local_steps", "integer ≥ 0", false, "local steps K per round (give local_steps or epochs)"},
		{"epochs", "integer ≥ 0", false, "local epochs per round instead of local_steps"},
		{"batch", "integer ≥ 0", false, "minibatch size (0: the full local batch)"},
		{"eval_every", "integer ≥ 0", false, "evaluate every N rounds, and at the first and last (0: first and last only)"},
		{"metrics", "list of metric names or fedlab.metric.* values", false, `what to measure (default { "objective" })`},
		{"init", `"default", "zeros", "normal" or "kaiming_uniform"`, false, `initial model (default "default": the loss's own, zeros for linear models and Kaiming-uniform for networks with hidden layers; "zeros" is refused for those)`},
		{"init_scale", "number ≥ 0", false, `standard deviation of init = "normal" (default 0.01)`},
		{"checkpoint_rounds", "integer ≥ 0", false, "save each run's state in the run directory every N rounds, besides fedlab run's --checkpoint-every time period (0: by time only); not part of the runs' keys"},
		{"divergence", "number > 1 or math.huge", false, "a run diverges at the first evaluated round whose training loss is not finite or exceeds divergence × max(|F(w₀)|, 1) (default 1e6; math.huge: only a NaN/Inf model)"},
	}
	// systemKeys are the system effects of fedlab.run, compare and sweep (see luaapi/system.go).
	systemKeys = []key{
		{"availability", "availability", false, "client availability from fedlab.availability.* (default: every sampled client replies after all its steps)"},
		{"compress_up", "compressor", false, "uplink compressor from fedlab.compressor.* (default: none)"},
		{"compress_down", "compressor", false, "downlink compressor from fedlab.compressor.*, applied to the change of the broadcast (default: none)"},
		{"privacy", "privacy", false, "client-level differential privacy from fedlab.privacy.* (default: none)"},
	}
	seedsKey = key{"seeds", "list of integers ≥ 0", false, "seeds, one run per seed (default { 1 })"}
	nameKey  = key{"name", "string", false, "the call's name: the title of its tables and figures in fedlab table, plot and report (default: its place in the script)"}
)

// The declared call tables.
var (
	problemCall = declare("fedlab.problem", "a problem: data, loss, regularizer, mirror map", []key{
		{"data", "dataset", true, "a dataset from fedlab.data.*"},
		{"loss", "loss", true, "a loss from fedlab.loss.*"},
		{"reg", "regularizer", false, `a regularizer from fedlab.reg.* (default: none)`},
		{"mirror", "mirror map", false, "a mirror map from fedlab.mirror.* (default: Euclidean)"},
		{"weighted", "boolean", false, "weight clients by their sample counts instead of uniformly"},
	})
	runCall = declare("fedlab.run", "one run of one algorithm", []key{
		{"algorithm", "algorithm", true, "an algorithm from fedlab.algo.*"},
		{"seed", "integer ≥ 0", false, "the seed (default 1)"},
	}, settingKeys, systemKeys, []key{nameKey})
	compareCall = declare("fedlab.compare", "every algorithm once per seed", []key{
		{"algorithms", "list of algorithms", true, "algorithms from fedlab.algo.* (distinct labels)"},
		seedsKey,
	}, settingKeys, systemKeys, []key{nameKey})
	sweepCall = declare("fedlab.sweep", "every algorithm under every configuration once per seed; selects the best configuration", []key{
		{"algorithms", "list of algorithms", true, "algorithms from fedlab.algo.* (distinct labels)"},
		seedsKey,
		{"grid", "table { key = { values... } }", false, "the configurations of a grid (keys: algorithm parameters or data., loss., reg., mirror. parameters)"},
		{"configs", "list of tables { key = value }", false, "explicit configurations (after the grid's)"},
		{"select", "rule or list of rules", true, `selection rule { metric =, mode = "max" or "min", last = ROUNDS }`},
		{"halving", "table { eta =, first = }", false, "successive halving: every configuration runs the first rung, the best 1/eta continue to the next rung; rungs of rounds/etaᵏ rounds, the last one rounds"},
	}, settingKeys, systemKeys, []key{nameKey})
	halvingCall = declare("fedlab.sweep halving", "successive halving of a sweep's configurations", []key{
		{"eta", "number ≥ 1", false, "the fraction 1/eta of the configurations continues at each rung, whose rounds are eta times the rung before (default 3; 1: no elimination)"},
		{"first", "integer ≥ 1", false, "least rounds of the first rung: the rungs are rounds/etaᵏ rounded, down to the last one ≥ first (default rounds / eta², at least eval_every)"},
	})
	ruleCall = declare("fedlab.sweep select", "a selection rule of fedlab.sweep", []key{
		{"metric", "metric name", true, "the metric to select by"},
		{"mode", `"max" or "min"`, true, "whether larger or smaller is better"},
		{"last", "integer ≥ 0", false, "score by the mean over the last N rounds (0: the last round)"},
	})
	stagesCall = declare("fedlab.stages", "a multistage pipeline run once per seed; the stages are the table's list part", []key{
		problemKey, seedsKey,
		{"label", "string", false, `the runs' label (default "stages")`},
		{"restart", `"last", "warm", "average", "top", "rank" or "init"`, false, `default restart of stages 2, 3, ... (default "last")`},
		{"keep", "integer ≥ 0", false, `default s of restart = "top" or "rank"`},
	}, settingKeys[2:], []key{nameKey}).withItems("stages { algo =, lambda =, radius =, rounds =, local_steps =, restart =, keep = }")
	stageCall = declare("fedlab.stages stage", "one stage of fedlab.stages", []key{
		{"algo", "algorithm", false, "the stage's algorithm (default: the previous stage's, with its parameters)"},
		{"lambda", "number, schedule or function of the round", false, "the penalty weight λ during the stage (default: the problem's)"},
		{"radius", "number ≥ 0", false, "the algorithm's constraint radius (parameter radius) during the stage"},
		{"rounds", "integer ≥ 0", true, "rounds of the stage"},
		{"local_steps", "integer ≥ 0", false, "local steps K during the stage (default: the call's)"},
		{"restart", `"last", "warm", "average", "top", "rank" or "init"`, false, "where the stage starts from the previous one (default: the call's restart)"},
		{"keep", "integer ≥ 0", false, `s of restart = "top" or "rank"`},
	})
	tableCall = declare("fedlab.table", "options of fedlab.table(runs, options)", []key{
		{"rounds", "list of integers ≥ 0", false, "the rounds shown (default: six evenly spaced evaluated rounds, the first and last included)"},
		{"metrics", "list of metric names", false, "the metrics shown (default: all)"},
		{"title", "string", false, "a title line"},
		{"transpose", "boolean", false, "rounds in columns and labels in rows, one table per metric"},
		{"format", `"text", "md", "latex" or "csv"`, false, "the format of file (default: from its extension: .md, .tex, .csv; text otherwise)"},
		{"file", "string", false, "also write the table to this file in the run directory (returns its path)"},
		{"bold", "boolean", false, "the best value of each metric per round in bold (md, latex)"},
		{"width", "integer ≥ 20", false, "text tables wider than this wrap (default 100)"},
	})
	sweepTableCall = declare("fedlab.sweep_table", "options of fedlab.sweep_table(sweep, options)", []key{
		{"cols", "string", false, "the swept key whose values are the columns (default: the last)"},
		{"title", "string", false, "a title line"},
		{"width", "integer ≥ 20", false, "text grids wider than width columns wrap into several (default 100)"},
		{"format", `"text", "md" or "latex"`, false, "the format of file (default: from its extension: .md, .tex; text otherwise)"},
		{"file", "string", false, "also write the grids to this file in the run directory (returns its path)"},
	})
	plotCall = declare("fedlab.plot", "options of fedlab.plot(runs, options)", []key{
		{"metric", "metric name", false, "the metric to draw (give metric or metrics)"},
		{"metrics", "list of metric names", false, "metrics drawn as panels of one figure"},
		{"x", `"round", "comm", "comm_rounds", "samples", "time" or a metric the runs measured (e.g. "bits")`, false, `the x axis (default "round"; "time" spreads each run's wall time evenly over its rounds)`},
		{"file", "string", false, "the file name without extension (default: the metrics)"},
		{"title", "string of at most 300 characters", false, "the figure title (default: none)"},
		{"log", "boolean", false, "force a logarithmic (true) or linear (false) y axis (default: log for error, gap and norm metrics)"},
		{"logx", "boolean", false, "a logarithmic x axis"},
		{"xlim", "list of 2 numbers", false, "x axis limits { min, max }"},
		{"ylim", "list of 2 numbers", false, "y axis limits { min, max }"},
		{"skip_round0", "boolean", false, "leave out round 0 (the initial point)"},
		{"width", "number from 2 to 60, or 0", false, "figure width in cm (0: the default, 16; the figure grows for its legend up to 60)"},
		{"height", "number from 2 to 60, or 0", false, "figure height in cm (0: the default, 10 per row of panels)"},
		{"font_size", "number from 4 to 36, or 0", false, "font size in points (0: the default, 10)"},
		{"xlabel", "string of at most 300 characters", false, "the x axis label (default: the axis's name)"},
		{"ylabel", "string of at most 300 characters", false, "the y axis label (default: the metric's display name)"},
		{"formats", "list of strings", false, `"png", "svg", "pdf" (default png and svg)`},
		{"hline", "reference line table or list of them", false, "horizontal reference lines { value =, label =, metric = }, e.g. a centralized optimum (default: none)"},
	})
	hlineCall = declare("fedlab.plot hline", "a horizontal reference line of fedlab.plot", []key{
		{"value", "number", true, "its y value (positive on a log axis)"},
		{"label", "string", false, "its legend entry (default: none)"},
		{"metric", "metric name", false, "the panel it is drawn in (default: every panel)"},
	})
)

// callTablesMarkdown renders the declared call tables for docs/lua-api.md.
func callTablesMarkdown() string {
	var b strings.Builder
	b.WriteString("<!-- generated from luaapi/calls.go by FEDLAB_UPDATE_DOCS=1 go test ./luaapi -run TestCallTablesAreDocumented -->\n\n")
	b.WriteString("Every table of named arguments a `fedlab.*` function takes is declared once in\n" +
		"`luaapi/calls.go` (key, type, required, meaning) and read by one strict decoder: an\n" +
		"unknown key is reported with the call, a \"did you mean\", the valid keys and the\n" +
		"script line, and all mistakes of a table are reported together.\n")
	for _, c := range callTables {
		fmt.Fprintf(&b, "\n### `%s`\n\n%s.", c.Name, c.Doc)
		if c.Items != "" {
			fmt.Fprintf(&b, " List part: %s.", c.Items)
		}
		b.WriteString("\n\n| key | type | required | meaning |\n|---|---|---|---|\n")
		for _, k := range c.Keys {
			req := ""
			if k.Required {
				req = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k.Name, k.Type, req, k.Doc)
		}
	}
	return b.String()
}
