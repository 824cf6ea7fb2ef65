package registry_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// testKind is private to these tests so that nothing clashes with the real
// components registered by other packages.
const testKind = registry.Kind("test_kind_xyz")

// widget is what components of testKind build.
type widget struct{ args registry.Args }

func buildWidget(a registry.Args) (widget, error) { return widget{args: a}, nil }

// mustPanic runs f and returns the panic message, failing if f returns.
func mustPanic(t *testing.T, what string, f func()) (msg string) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatalf("%s: no panic", what)
		}
		msg = fmt.Sprint(r)
	}()
	f()
	return ""
}

// wantAll fails unless err is non-nil and its message contains every part.
func wantAll(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

// full is a component with one parameter of every type.
var full = registry.Spec{
	Name: "full",
	Doc:  "one parameter of every type",
	Params: []registry.Param{
		{Name: "rate", Type: registry.Float, Default: 0.5, Min: registry.Bound(0), Max: registry.Bound(1), Doc: "a float in [0, 1]"},
		{Name: "steps", Type: registry.Int, Default: 10, Min: registry.Bound(1), Max: registry.Bound(100), Doc: "an int in [1, 100]"},
		{Name: "verbose", Type: registry.Bool, Default: false, Doc: "a bool"},
		{Name: "mode", Type: registry.String, Default: "fast", Choices: []string{"fast", "slow"}, Doc: "a choice"},
		{Name: "label", Type: registry.String, Default: "", Doc: "any string"},
		{Name: "step", Type: registry.Sched, Default: 1.0, Min: registry.Bound(0), Doc: "a nonnegative schedule"},
		{Name: "weights", Type: registry.Floats, Default: []float64{1, 2}, Min: registry.Bound(0), Doc: "nonnegative numbers"},
		{Name: "target", Type: registry.Float, Doc: "a required float"},
	},
}

func init() {
	registry.Register[widget](testKind, full, buildWidget)
	registry.Register[widget](testKind, registry.Spec{Name: "bare", Doc: "no parameters"}, buildWidget)
}

func validate(raw map[string]any) (registry.Args, error) {
	return registry.Validate(testKind, "full", raw)
}

func TestRegisterPanics(t *testing.T) {
	k := registry.Kind("test_kind_xyz_register")
	registry.Register[widget](k, registry.Spec{Name: "a", Doc: "first"}, buildWidget)

	msg := mustPanic(t, "duplicate", func() {
		registry.Register[widget](k, registry.Spec{Name: "a", Doc: "again"}, buildWidget)
	})
	if !strings.Contains(msg, "twice") || !strings.Contains(msg, `"a"`) {
		t.Errorf("duplicate panic %q should name the component and say it was registered twice", msg)
	}

	msg = mustPanic(t, "type mismatch", func() {
		registry.Register[string](k, registry.Spec{Name: "b", Doc: "wrong type"},
			func(registry.Args) (string, error) { return "", nil })
	})
	if !strings.Contains(msg, "string") || !strings.Contains(msg, "widget") {
		t.Errorf("type mismatch panic %q should name both types", msg)
	}

	mustPanic(t, "missing component doc", func() {
		registry.Register[widget](k, registry.Spec{Name: "c"}, buildWidget)
	})
	mustPanic(t, "missing name", func() {
		registry.Register[widget](k, registry.Spec{Doc: "no name"}, buildWidget)
	})
	msg = mustPanic(t, "missing parameter doc", func() {
		registry.Register[widget](k, registry.Spec{Name: "d", Doc: "d", Params: []registry.Param{{Name: "x", Type: registry.Float}}}, buildWidget)
	})
	if !strings.Contains(msg, `"x"`) {
		t.Errorf("missing doc panic %q should name the parameter", msg)
	}
	mustPanic(t, "parameter declared twice", func() {
		registry.Register[widget](k, registry.Spec{Name: "e", Doc: "e", Params: []registry.Param{
			{Name: "x", Type: registry.Float, Doc: "x"}, {Name: "x", Type: registry.Int, Doc: "x again"}}}, buildWidget)
	})

	bad := []registry.Param{
		{Name: "x", Type: registry.Float, Default: "one", Doc: "string default for a float"},
		{Name: "x", Type: registry.Float, Default: -1.0, Min: registry.Bound(0), Doc: "default below Min"},
		{Name: "x", Type: registry.Int, Default: 2.5, Doc: "non-integral int default"},
		{Name: "x", Type: registry.Bool, Default: 1, Doc: "number default for a bool"},
		{Name: "x", Type: registry.String, Default: "c", Choices: []string{"a", "b"}, Doc: "default not a choice"},
		{Name: "x", Type: registry.Floats, Default: []float64{1, -1}, Min: registry.Bound(0), Doc: "list default below Min"},
		{Name: "x", Type: registry.Sched, Default: 5.0, Max: registry.Bound(1), Doc: "schedule default above Max"},
	}
	for i, p := range bad {
		name := fmt.Sprintf("bad%d", i)
		msg := mustPanic(t, p.Doc, func() {
			registry.Register[widget](k, registry.Spec{Name: name, Doc: "bad default", Params: []registry.Param{p}}, buildWidget)
		})
		if !strings.Contains(msg, "bad default") {
			t.Errorf("%s: panic %q should say the default is bad", p.Doc, msg)
		}
	}

	// None of the failed registrations left a component behind.
	if got := registry.Names(k); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("Names = %v after failed registrations, want [a]", got)
	}
}

func TestLookupFindBuild(t *testing.T) {
	s, ok := registry.Lookup(testKind, "full")
	if !ok || s.Kind != testKind || s.Name != "full" {
		t.Fatalf("Lookup = %+v, %v", s, ok)
	}
	if _, ok := registry.Lookup(testKind, "nope"); ok {
		t.Error("Lookup found an unregistered name")
	}
	if got := registry.Names(testKind); !reflect.DeepEqual(got, []string{"bare", "full"}) {
		t.Errorf("Names = %v, want sorted [bare full]", got)
	}
	_, err := registry.Build[widget](testKind, "nope", nil)
	wantAll(t, err, `unknown test_kind_xyz "nope"`, "bare, full")
	_, err = registry.Build[widget](registry.Kind("test_kind_xyz_empty"), "x", nil)
	wantAll(t, err, "unknown kind")

	w, err := registry.Build[widget](testKind, "full", map[string]any{"target": 3})
	if err != nil {
		t.Fatal(err)
	}
	if w.args.Float("target") != 3 || w.args.Spec() != s {
		t.Errorf("Build passed args %v", w.args.Values())
	}
	// Asking for the wrong Go type is an error, not a panic.
	_, err = registry.Build[string](testKind, "full", map[string]any{"target": 3})
	wantAll(t, err, "full", "string")
	// Validation errors come back from Build.
	_, err = registry.Build[widget](testKind, "full", nil)
	wantAll(t, err, "missing required", `"target"`)
}

func TestValidateFillsDefaults(t *testing.T) {
	a, err := validate(map[string]any{"target": 1.5})
	if err != nil {
		t.Fatal(err)
	}
	if a.Float("target") != 1.5 || a.Float("rate") != 0.5 || a.Int("steps") != 10 || a.Bool("verbose") ||
		a.String("mode") != "fast" || a.String("label") != "" || !reflect.DeepEqual(a.Floats("weights"), []float64{1, 2}) {
		t.Errorf("defaults not filled: %v", a.Values())
	}
	if s, ok := a.Schedule("step").(sched.Constant); !ok || s != 1 {
		t.Errorf("schedule default = %#v, want sched.Constant(1)", a.Schedule("step"))
	}
	if len(a.Values()) != len(full.Params) {
		t.Errorf("Values has %d entries, want %d", len(a.Values()), len(full.Params))
	}
	for _, p := range full.Params {
		if !a.Has(p.Name) {
			t.Errorf("Has(%q) = false", p.Name)
		}
	}
	// The returned list is a copy: changing it does not change the declared default.
	a.Floats("weights")[0] = 99
	b, _ := validate(map[string]any{"target": 1.5})
	if b.Floats("weights")[0] != 1 {
		t.Error("Floats default shared between validations")
	}
	// Given values override defaults.
	a, err = validate(map[string]any{"target": 0, "rate": 1, "steps": 100, "verbose": true, "mode": "slow",
		"label": "x", "step": 0.25, "weights": []any{0, 3.5}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Float("rate") != 1 || a.Int("steps") != 100 || !a.Bool("verbose") || a.String("mode") != "slow" ||
		a.String("label") != "x" || a.Schedule("step").At(7) != 0.25 || !reflect.DeepEqual(a.Floats("weights"), []float64{0, 3.5}) {
		t.Errorf("given values not kept: %v", a.Values())
	}
}

func TestValidateUnknownKey(t *testing.T) {
	_, err := validate(map[string]any{"target": 1, "rat": 0.1})
	wantAll(t, err, `test_kind_xyz "full"`, `unknown parameter "rat"`, `did you mean "rate"?`,
		"valid keys: rate, steps, verbose, mode, label, step, weights, target")

	_, err = validate(map[string]any{"target": 1, "completely_different": 0.1})
	wantAll(t, err, `unknown parameter "completely_different"`, "valid keys")
	if strings.Contains(err.Error(), "did you mean") {
		t.Errorf("far-off key got a suggestion: %v", err)
	}

	_, err = registry.Validate(testKind, "bare", map[string]any{"x": 1})
	wantAll(t, err, `"bare"`, `unknown parameter "x"`, "takes no parameters")

	_, err = registry.Validate(testKind, "nope", nil)
	wantAll(t, err, `unknown test_kind_xyz "nope"`)
}

func TestValidateMissingRequired(t *testing.T) {
	_, err := validate(map[string]any{})
	wantAll(t, err, `test_kind_xyz "full"`, `missing required parameter "target"`, "float", "a required float")
	if a, err := registry.Validate(testKind, "bare", nil); err != nil || len(a.Values()) != 0 {
		t.Errorf("bare with nil params: %v, %v", a.Values(), err)
	}
}

func TestValidateWrongTypes(t *testing.T) {
	cases := []struct {
		key  string
		val  any
		want string
	}{
		{"rate", "0.5", `expected a number, got the string "0.5"`},
		{"rate", true, "expected a number, got the boolean true"},
		{"steps", "3", `expected an integer, got the string "3"`},
		{"steps", []any{1}, "expected an integer, got a list"},
		{"verbose", 1, "expected true or false, got the number 1"},
		{"verbose", "true", "expected true or false"},
		{"mode", 1.0, "expected a string, got the number 1"},
		{"label", false, "expected a string"},
		{"step", "fast", `expected a number, a schedule or a function of the round, got the string "fast"`},
		{"step", map[string]any{}, "got a table"},
		{"weights", 1.0, "expected a list of numbers, got the number 1"},
		{"weights", "1,2", "expected a list of numbers"},
		{"target", nil, "expected a number, got nil"},
	}
	for _, c := range cases {
		_, err := validate(map[string]any{"target": 1, c.key: c.val})
		if err == nil {
			t.Errorf("%s = %#v accepted", c.key, c.val)
			continue
		}
		wantAll(t, err, `test_kind_xyz "full"`, fmt.Sprintf("parameter %q", c.key), c.want)
		// A value given with the wrong type is not also reported missing.
		if strings.Contains(err.Error(), "missing") {
			t.Errorf("%s: wrong type also reported missing: %v", c.key, err)
		}
	}
}

func TestValidateIntegers(t *testing.T) {
	for _, v := range []any{2.5, 1e300, math.Inf(1), math.NaN()} {
		_, err := validate(map[string]any{"target": 1, "steps": v})
		wantAll(t, err, `parameter "steps"`, "expected an integer")
	}
	for _, v := range []any{3.0, 3, int64(3)} {
		a, err := validate(map[string]any{"target": 1, "steps": v})
		if err != nil {
			t.Errorf("steps = %#v: %v", v, err)
			continue
		}
		if got := a.Values()["steps"]; got != any(3) {
			t.Errorf("steps = %#v stored as %#v, want int 3", v, got)
		}
		if a.Int("steps") != 3 {
			t.Errorf("Int(steps) = %d", a.Int("steps"))
		}
	}
}

func TestValidateRanges(t *testing.T) {
	cases := []struct {
		key  string
		val  any
		want string
	}{
		{"rate", -0.01, `parameter "rate" = -0.01 is below its minimum 0`},
		{"rate", 1.5, `parameter "rate" = 1.5 is above its maximum 1`},
		{"steps", 0, `parameter "steps" = 0 is below its minimum 1`},
		{"steps", 101.0, `parameter "steps" = 101 is above its maximum 100`},
		{"step", -1, `parameter "step" = -1 is below its minimum 0`},
		{"weights", []any{1, -2}, `parameter "weights" = -2 is below its minimum 0`},
		{"weights", []float64{-3}, `parameter "weights" = -3 is below its minimum 0`},
		{"rate", math.NaN(), `parameter "rate": NaN is not allowed`},
		{"target", math.NaN(), `parameter "target": NaN is not allowed`},
		{"step", math.NaN(), `parameter "step": NaN is not allowed`},
		{"weights", []any{1, math.NaN()}, `parameter "weights": NaN is not allowed`},
		// ∞ (1/0 in Lua) only where the default is ∞: it ran to +Inf or NaN before
		{"target", math.Inf(-1), `parameter "target" = -Inf: want a finite number`},
		{"rate", math.Inf(1), `parameter "rate" = +Inf: want a finite number (range: [0, 1])`},
	}
	for _, c := range cases {
		_, err := validate(map[string]any{"target": 1, c.key: c.val})
		wantAll(t, err, `test_kind_xyz "full"`, c.want)
	}
	// The bounds are inclusive.
	for _, raw := range []map[string]any{
		{"target": 1, "rate": 0}, {"target": 1, "rate": 1}, {"target": 1, "steps": 1}, {"target": 1, "steps": 100},
		{"target": 1, "step": 0}, {"target": 1, "weights": []any{0}},
	} {
		if _, err := validate(raw); err != nil {
			t.Errorf("%v rejected: %v", raw, err)
		}
	}
}

func TestValidateChoices(t *testing.T) {
	_, err := validate(map[string]any{"target": 1, "mode": "medium"})
	wantAll(t, err, `parameter "mode"`, `"medium" is not one of fast, slow`)
	_, err = validate(map[string]any{"target": 1, "mode": "FAST"})
	wantAll(t, err, `"FAST" is not one of`)
	if a, err := validate(map[string]any{"target": 1, "mode": "slow"}); err != nil || a.String("mode") != "slow" {
		t.Errorf("mode slow: %v", err)
	}
	// Without choices any string goes.
	if a, err := validate(map[string]any{"target": 1, "label": "medium"}); err != nil || a.String("label") != "medium" {
		t.Errorf("label: %v", err)
	}
}

func TestValidateFloats(t *testing.T) {
	a, err := validate(map[string]any{"target": 1, "weights": []any{1, 2.5, int64(4)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Floats("weights"); !reflect.DeepEqual(got, []float64{1, 2.5, 4}) {
		t.Errorf("weights = %v", got)
	}
	_, err = validate(map[string]any{"target": 1, "weights": []any{1, 2, "three"}})
	wantAll(t, err, `parameter "weights"`, `element 3: expected a number, got the string "three"`)
	_, err = validate(map[string]any{"target": 1, "weights": []any{true}})
	wantAll(t, err, "element 1: expected a number, got the boolean true")

	// A []float64 is copied, not aliased.
	in := []float64{5, 6}
	a, err = validate(map[string]any{"target": 1, "weights": in})
	if err != nil {
		t.Fatal(err)
	}
	in[0] = -1
	if a.Floats("weights")[0] != 5 {
		t.Error("Floats aliases the caller's slice")
	}
	// An empty list is a valid (empty) list.
	a, err = validate(map[string]any{"target": 1, "weights": []any{}})
	if err != nil || len(a.Floats("weights")) != 0 {
		t.Errorf("empty list: %v, %v", a.Values(), err)
	}
}

// rounds is an unbounded schedule (no Range method).
type rounds struct{}

func (rounds) At(r int) float64 { return float64(-r) }

func TestValidateSchedules(t *testing.T) {
	a, err := validate(map[string]any{"target": 1, "step": 2})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := a.Schedule("step").(sched.Constant); !ok || c != 2 {
		t.Errorf("number became %#v, want sched.Constant(2)", a.Schedule("step"))
	}

	tab := sched.Table{0.3, 0.2, 0.1}
	a, err = validate(map[string]any{"target": 1, "step": tab})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Schedule("step"); got.At(1) != 0.2 || got.At(10) != 0.1 {
		t.Errorf("table schedule not kept: %#v", got)
	}

	// A bounded schedule is range-checked over its whole range.
	_, err = validate(map[string]any{"target": 1, "step": sched.Table{0.3, -0.1, 0.1}})
	wantAll(t, err, `parameter "step" = -0.1 is below its minimum 0`)
	_, err = validate(map[string]any{"target": 1, "step": sched.Table{0.3, math.NaN()}})
	wantAll(t, err, `parameter "step": NaN is not allowed`)
	_, err = validate(map[string]any{"target": 1, "step": sched.Constant(-1)})
	wantAll(t, err, `parameter "step" = -1 is below its minimum 0`)

	// An unbounded schedule cannot be checked up front and is accepted as is.
	a, err = validate(map[string]any{"target": 1, "step": rounds{}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Schedule("step").At(3) != -3 {
		t.Error("unbounded schedule not kept")
	}
}

func TestValidateReportsEveryError(t *testing.T) {
	_, err := validate(map[string]any{"rat": 1, "steps": 2.5, "verbose": "yes", "mode": "medium", "weights": []any{"x"}})
	wantAll(t, err, `unknown parameter "rat"`, `parameter "steps": expected an integer, got 2.5`,
		`parameter "verbose": expected true or false`, `"medium" is not one of`, "element 1", `missing required parameter "target"`)
	// errors.Join keeps them separate.
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 6 {
		t.Errorf("want 6 joined errors, got %v", err)
	}
}

func TestArgsGettersPanicOnUndeclared(t *testing.T) {
	a, err := validate(map[string]any{"target": 1})
	if err != nil {
		t.Fatal(err)
	}
	getters := map[string]func(){
		"Float undeclared":     func() { a.Float("nope") },
		"Int undeclared":       func() { a.Int("nope") },
		"Bool undeclared":      func() { a.Bool("nope") },
		"String undeclared":    func() { a.String("nope") },
		"Floats undeclared":    func() { a.Floats("nope") },
		"Schedule undeclared":  func() { a.Schedule("nope") },
		"Float of an Int":      func() { a.Float("steps") },
		"Int of a Float":       func() { a.Int("rate") },
		"Schedule of a Float":  func() { a.Schedule("rate") },
		"Float of a Schedule":  func() { a.Float("step") },
		"String of a Bool":     func() { a.String("verbose") },
		"Floats of a Float":    func() { a.Floats("rate") },
		"Bool of a String":     func() { a.Bool("mode") },
		"Int of a Floats list": func() { a.Int("weights") },
	}
	for what, f := range getters {
		msg := mustPanic(t, what, f)
		if !strings.Contains(msg, `test_kind_xyz "full"`) || !strings.Contains(msg, "undeclared") {
			t.Errorf("%s: panic %q should name the component", what, msg)
		}
	}
	if a.Has("nope") {
		t.Error(`Has("nope") = true`)
	}
}

func TestParamTexts(t *testing.T) {
	s, _ := registry.Lookup(testKind, "full")
	want := map[string][2]string{
		"rate":    {"[0, 1]", "0.5"},
		"mode":    {"fast | slow", `"fast"`},
		"step":    {">= 0", "1"},
		"weights": {">= 0", "{1, 2}"},
		"target":  {"", "required"},
	}
	for name, w := range want {
		p, ok := s.Param(name)
		if !ok {
			t.Fatalf("Param(%q) not found", name)
		}
		if p.RangeText() != w[0] || p.DefaultText() != w[1] {
			t.Errorf("%s: RangeText %q DefaultText %q, want %q %q", name, p.RangeText(), p.DefaultText(), w[0], w[1])
		}
	}
	if p, _ := s.Param("target"); !p.Required() {
		t.Error("target not required")
	}
	if p := (registry.Param{Max: registry.Bound(3)}); p.RangeText() != "<= 3" {
		t.Errorf("RangeText = %q", p.RangeText())
	}
	if _, ok := s.Param("nope"); ok {
		t.Error("Param found an undeclared name")
	}
}
