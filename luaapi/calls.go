package luaapi

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/plot"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// valueType is the type of value a key of a call table takes.
type valueType int

// Value types. Integers and numbers are ≥ 0 (no call takes a negative
// one); a list is a Lua sequence.
const (
	tInteger   valueType = iota // an integer ≥ 0
	tNumber                     // a finite number ≥ 0
	tBoolean                    // true or false
	tString                     // a string, one of Choices if given
	tIntegers                   // a list of integers ≥ 0
	tStrings                    // a list of strings
	tList                       // a list of values (What says of what)
	tTable                      // a table (What says which)
	tValue                      // a problem, a number, a schedule ... (What says which)
	tComponent                  // a component of kind Kind
)

// key declares one key of a call table: its name, type, default and a
// one-line description, the way the registry declares a component's
// parameters. The getters of fields read a key by its declaration.
type key struct {
	Name     string
	Type     valueType
	Kind     registry.Kind // tComponent: the kind
	Choices  []string      // tString: the valid values
	What     string        // tList, tTable, tValue: what the value is, for the reference
	Default  any           // the value when the key is absent (int, float64, bool or string); nil: none
	Required bool
	Doc      string
}

// typeText renders the key's type for the reference.
func (k key) typeText() string {
	switch k.Type {
	case tInteger:
		return "integer ≥ 0"
	case tNumber:
		return "number ≥ 0"
	case tBoolean:
		return "boolean"
	case tString:
		if len(k.Choices) > 0 {
			return `"` + strings.Join(k.Choices, `", "`) + `"`
		}
		return "string"
	case tIntegers:
		return "list of integers ≥ 0"
	case tStrings:
		return "list of strings"
	case tComponent:
		return fmt.Sprintf("%s (fedlab.%s.*)", k.Kind, Namespace(k.Kind))
	}
	return k.What
}

// defaultText renders the key's default for the reference.
func (k key) defaultText() string {
	switch d := k.Default.(type) {
	case nil:
	case string:
		if d != "" {
			return fmt.Sprintf("%q", d)
		}
	default:
		if !k.Required {
			return fmt.Sprint(d)
		}
	}
	if k.Required {
		return "required"
	}
	return ""
}

// Key constructors.
func integerKey(name string, def int, doc string) key {
	return key{Name: name, Type: tInteger, Default: def, Doc: doc}
}
func numberKey(name string, def float64, doc string) key {
	return key{Name: name, Type: tNumber, Default: def, Doc: doc}
}
func booleanKey(name string, def bool, doc string) key {
	return key{Name: name, Type: tBoolean, Default: def, Doc: doc}
}
func stringKey(name, def, doc string, choices ...string) key {
	return key{Name: name, Type: tString, Default: def, Choices: choices, Doc: doc}
}
func componentKey(name string, kind registry.Kind, doc string) key {
	return key{Name: name, Type: tComponent, Kind: kind, Doc: doc}
}
func otherKey(name string, t valueType, what, doc string) key {
	return key{Name: name, Type: t, What: what, Doc: doc}
}

// required marks k as required.
func required(k key) key {
	k.Required = true
	return k
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
	msg := fmt.Sprintf("%s: unknown key %q", c.Name, k)
	if near := registry.Suggest(k, c.names()); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return fmt.Errorf("%s; valid keys: %s", msg, strings.Join(c.names(), ", "))
}

// Keys shared by several calls.
var (
	problemKey  = required(otherKey("problem", tValue, "problem", "the problem, from fedlab.problem"))
	settingKeys = []key{
		problemKey,
		required(integerKey("rounds", 0, "number of rounds")),
		integerKey("clients_per_round", 0, "clients sampled per round (0: all)"),
		integerKey("local_steps", 0, "local steps K per round (give local_steps or epochs)"),
		integerKey("epochs", 0, "local epochs per round instead of local_steps"),
		integerKey("batch", 0, "minibatch size (0: the full local batch)"),
		integerKey("eval_every", 0, "evaluate every N rounds, and at the first and last (0: first and last only)"),
		otherKey("metrics", tList, "list of metric names or fedlab.metric.* values", `what to measure (absent: { "objective" })`),
		stringKey("init", "zeros", "the initial model", "zeros", "normal"),
		numberKey("init_scale", 0.01, `standard deviation of init = "normal"`),
	}
	seedsKey    = key{Name: "seeds", Type: tIntegers, Doc: "seeds, one run per seed (absent: { 1 })"}
	algorithms  = required(otherKey("algorithms", tList, "list of algorithms (fedlab.algo.*)", "the algorithms (distinct labels)"))
	restartKeys = []string{"last", "warm", "average", "top", "rank", "init"}
)

// The declared call tables.
var (
	problemCall = declare("fedlab.problem", "a problem: data, loss, regularizer, mirror map", []key{
		required(componentKey("data", registry.Dataset, "the data")),
		required(componentKey("loss", registry.Loss, "the loss")),
		componentKey("reg", registry.Regularizer, "the regularizer (absent: none)"),
		componentKey("mirror", registry.Mirror, "the mirror map (absent: Euclidean)"),
		booleanKey("weighted", false, "weight clients by their sample counts instead of uniformly"),
	})
	runCall = declare("fedlab.run", "one run of one algorithm", []key{
		required(componentKey("algorithm", registry.Algorithm, "the algorithm")),
		integerKey("seed", 1, "the seed"),
	}, settingKeys)
	compareCall = declare("fedlab.compare", "every algorithm once per seed", []key{algorithms, seedsKey}, settingKeys)
	sweepCall   = declare("fedlab.sweep", "every algorithm under every configuration once per seed; selects the best configuration", []key{
		algorithms, seedsKey,
		otherKey("grid", tTable, "table { key = { values... } }", "the configurations of a grid (keys: algorithm parameters or data., loss., reg., mirror. parameters)"),
		otherKey("configs", tList, "list of tables { key = value }", "explicit configurations (after the grid's)"),
		required(otherKey("select", tTable, "rule or list of rules", `selection rule { metric =, mode =, last = }`)),
	}, settingKeys)
	ruleCall = declare("fedlab.sweep select", "a selection rule of fedlab.sweep", []key{
		required(stringKey("metric", "", "the metric to select by")),
		required(stringKey("mode", "", "whether larger or smaller is better", "max", "min")),
		integerKey("last", 0, "score by the mean over the last N rounds (0: the last round)"),
	})
	stagesCall = declare("fedlab.stages", "a multistage pipeline run once per seed; the stages are the table's list part", []key{
		problemKey, seedsKey,
		stringKey("label", "stages", "the runs' label"),
		stringKey("restart", "last", "default restart of stages 2, 3, ...", restartKeys...),
		integerKey("keep", 0, `default s of restart = "top" or "rank"`),
	}, settingKeys[2:]).withItems("stages { algo =, lambda =, radius =, rounds =, local_steps =, restart =, keep = }")
	stageCall = declare("fedlab.stages stage", "one stage of fedlab.stages", []key{
		componentKey("algo", registry.Algorithm, "the stage's algorithm (absent: the previous stage's, with its parameters)"),
		otherKey("lambda", tValue, "number, schedule or function of the round", "the penalty weight λ during the stage (absent: the problem's)"),
		numberKey("radius", 0, "the algorithm's constraint radius (parameter radius) during the stage (0: as given)"),
		required(integerKey("rounds", 0, "rounds of the stage")),
		integerKey("local_steps", 0, "local steps K during the stage (0: the call's)"),
		stringKey("restart", "", "where the stage starts from the previous one (absent: the call's restart)", restartKeys...),
		integerKey("keep", 0, `s of restart = "top" or "rank" (0: the call's)`),
	})
	tableCall = declare("fedlab.table", "options of fedlab.table(runs, options)", []key{
		{Name: "rounds", Type: tIntegers, Doc: "the rounds shown (absent: up to six evaluated rounds)"},
		{Name: "metrics", Type: tStrings, Doc: "the metrics shown (absent: all)"},
		stringKey("title", "", "a title line"),
		booleanKey("transpose", false, "rounds in columns and labels in rows, one table per metric"),
	})
	sweepTableCall = declare("fedlab.sweep_table", "options of fedlab.sweep_table(sweep, options)", []key{
		stringKey("cols", "", "the swept key whose values are the columns (absent: the last)"),
		stringKey("title", "", "a title line"),
	})
	plotCall = declare("fedlab.plot", "options of fedlab.plot(runs, options)", []key{
		required(stringKey("metric", "", "the metric to draw")),
		stringKey("x", "round", "the x axis", plot.XNames...),
		stringKey("file", "", "the file name without extension (absent: the metric)"),
		stringKey("title", "", "the chart title"),
		booleanKey("log", false, "a logarithmic y axis"),
		{Name: "formats", Type: tStrings, Doc: `"png", "svg", "pdf" (absent: png and svg)`},
	})
)

// callTablesMarkdown renders the declared call tables for docs/lua-api.md.
func callTablesMarkdown() string {
	var b strings.Builder
	b.WriteString("<!-- generated from luaapi/calls.go by FEDLAB_UPDATE_DOCS=1 go test ./luaapi -run TestCallTablesAreDocumented -->\n\n")
	b.WriteString("Every table of named arguments a `fedlab.*` function takes is declared once in\n" +
		"`luaapi/calls.go` (key, type, default, meaning) and read by one strict decoder: an\n" +
		"unknown key is reported with the call, a \"did you mean\", the valid keys and the\n" +
		"script line, and all mistakes of a table are reported together.\n")
	for _, c := range callTables {
		fmt.Fprintf(&b, "\n### `%s`\n\n%s.", c.Name, c.Doc)
		if c.Items != "" {
			fmt.Fprintf(&b, " List part: %s.", c.Items)
		}
		b.WriteString("\n\n| key | type | default | meaning |\n|---|---|---|---|\n")
		for _, k := range c.Keys {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k.Name, k.typeText(), k.defaultText(), k.Doc)
		}
	}
	return b.String()
}
