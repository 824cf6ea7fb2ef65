package registry

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/schedules/sched"
)

// Type is the declared type of a parameter.
type Type int

// Parameter types. A Sched parameter accepts a number (a constant), a
// registered schedule or, from Lua, a function of the round. A Component
// parameter accepts a built component of the kind Param.Kind (e.g. a
// topology) or the name of one, built with its default parameters.
const (
	Float Type = iota
	Int
	Bool
	String
	Sched
	Floats
	Component
)

func (t Type) String() string {
	switch t {
	case Float:
		return "float"
	case Int:
		return "int"
	case Bool:
		return "bool"
	case String:
		return "string"
	case Sched:
		return "schedule"
	case Floats:
		return "float list"
	case Component:
		return "component"
	}
	return "?"
}

// Param declares one parameter of a component.
type Param struct {
	Name    string
	Type    Type
	Default any      // nil means required (Schedule defaults are float64 constants)
	Min     *float64 // inclusive lower bound for numbers (and every schedule value known up front)
	Max     *float64 // inclusive upper bound
	Choices []string // allowed values of a String parameter
	Kind    Kind     // the kind of a Component parameter (its default is a registered name)
	// Path marks a String parameter that names a file, directory or glob
	// the component reads: the plan that builds the component resolves
	// its relative value (plan.InputPaths).
	Path bool
	Doc  string // one line
}

// TypeText names the parameter's type as the docs show it: "path" for an
// input path, else the Type.
func (p Param) TypeText() string {
	if p.Path {
		return "path"
	}
	return p.Type.String()
}

// Bound returns a pointer to v, for Param.Min and Param.Max.
func Bound(v float64) *float64 { return &v }

// Required reports whether the parameter has no default.
func (p Param) Required() bool { return p.Default == nil }

// RangeText renders the allowed range or choices, or "".
func (p Param) RangeText() string {
	if len(p.Choices) > 0 {
		return strings.Join(p.Choices, " | ")
	}
	switch {
	case p.Min != nil && p.Max != nil:
		return fmt.Sprintf("[%g, %g]", *p.Min, *p.Max)
	case p.Min != nil:
		return fmt.Sprintf(">= %g", *p.Min)
	case p.Max != nil:
		return fmt.Sprintf("<= %g", *p.Max)
	}
	return ""
}

// DefaultText renders the default value, or "required".
func (p Param) DefaultText() string {
	switch d := p.Default.(type) {
	case nil:
		return "required"
	case string:
		return fmt.Sprintf("%q", d)
	case []float64:
		parts := make([]string, len(d))
		for i, v := range d {
			parts[i] = fmt.Sprintf("%g", v)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return fmt.Sprintf("%v", d)
	}
}

func (s *Spec) check() error {
	if s.Name == "" || s.Doc == "" {
		return fmt.Errorf("%s: name and doc are required", s.Title())
	}
	seen := map[string]bool{}
	for _, p := range s.Params {
		if seen[p.Name] {
			return fmt.Errorf("%s: parameter %q declared twice", s.Title(), p.Name)
		}
		if p.Path && p.Type != String {
			return fmt.Errorf("%s: parameter %q: a path must be a String parameter, not %s", s.Title(), p.Name, p.Type)
		}
		seen[p.Name] = true
		if p.Doc == "" {
			return fmt.Errorf("%s: parameter %q has no doc", s.Title(), p.Name)
		}
		if p.Type == Component {
			// The default names a component that may register later, so
			// only its type is checked here (Validate resolves it).
			if _, ok := p.Default.(string); p.Kind == "" || (p.Default != nil && !ok) {
				return fmt.Errorf("%s: component parameter %q needs a Kind and a default that is a name", s.Title(), p.Name)
			}
			continue
		}
		if p.Default != nil {
			if _, err := s.convert(p, p.Default); err != nil {
				return fmt.Errorf("bad default: %w", err)
			}
		}
	}
	return nil
}

// Args holds validated parameter values, defaults filled in.
type Args struct {
	spec  *Spec
	vals  map[string]any
	build BuildContext // what the factory receives (WithContext)
}

// Spec returns the spec the values were validated against.
func (a Args) Spec() *Spec { return a.spec }

// Values returns a copy of the validated values (the fully resolved parameters).
func (a Args) Values() map[string]any {
	return maps.Clone(a.vals)
}

// Has reports whether a value is set for name (given or defaulted).
func (a Args) Has(name string) bool { _, ok := a.vals[name]; return ok }

func (a Args) get(name string, t Type) any {
	p, ok := a.spec.Param(name)
	if !ok || p.Type != t {
		panic(fmt.Sprintf("registry: %s reads undeclared %s parameter %q", a.spec.Title(), t, name))
	}
	return a.vals[name]
}

// Float returns a Float parameter.
func (a Args) Float(name string) float64 { return a.get(name, Float).(float64) }

// Int returns an Int parameter.
func (a Args) Int(name string) int { return a.get(name, Int).(int) }

// Bool returns a Bool parameter.
func (a Args) Bool(name string) bool { return a.get(name, Bool).(bool) }

// String returns a String parameter.
func (a Args) String(name string) string { return a.get(name, String).(string) }

// Floats returns a Floats parameter.
func (a Args) Floats(name string) []float64 { return a.get(name, Floats).([]float64) }

// Schedule returns a Sched parameter.
func (a Args) Schedule(name string) sched.Schedule { return a.get(name, Sched).(sched.Schedule) }

// Component returns a Component parameter: the given component, or the one
// its name designates built with default parameters.
func (a Args) Component(name string) (any, error) {
	v := a.get(name, Component)
	if n, ok := v.(string); ok {
		p, _ := a.spec.Param(name)
		return Build[any](p.Kind, n, nil)
	}
	return v, nil
}

// Validate checks raw against the declaration: unknown keys, missing required
// keys, wrong types, non-integral integers and out-of-range values are errors
// that name the component, the key and what was expected.
func (s *Spec) Validate(raw map[string]any) (Args, error) {
	vals := make(map[string]any, len(s.Params))
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		p, ok := s.Param(k)
		if !ok {
			errs = append(errs, s.unknownKey(k))
			continue
		}
		v, err := s.convert(p, raw[k])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		vals[k] = v
	}
	for _, p := range s.Params {
		if _, ok := vals[p.Name]; ok {
			continue
		}
		if _, given := raw[p.Name]; given {
			continue
		}
		if p.Required() {
			errs = append(errs, fmt.Errorf("%s: missing required parameter %q (%s: %s)", s.Title(), p.Name, p.Type, p.Doc))
			continue
		}
		v, err := s.convert(p, p.Default)
		if err != nil { // a Component default naming an unregistered component
			errs = append(errs, err)
			continue
		}
		vals[p.Name] = v
	}
	if len(errs) > 0 {
		return Args{}, errors.Join(errs...)
	}
	a := Args{spec: s, vals: vals}
	if s.crossCheck != nil {
		if err := s.crossCheck(a); err != nil {
			return Args{}, fmt.Errorf("%s: %w", s.Title(), err)
		}
	}
	return a, nil
}

func (s *Spec) unknownKey(k string) error {
	msg := fmt.Sprintf("%s: unknown parameter %q%s", s.Title(), k, DidYouMean(k, s.ParamNames()))
	names := s.ParamNames()
	if len(names) == 0 {
		return fmt.Errorf("%s; it takes no parameters", msg)
	}
	return fmt.Errorf("%s; valid keys: %s", msg, strings.Join(names, ", "))
}

func (s *Spec) convert(p Param, v any) (any, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: parameter %q: %s", s.Title(), p.Name, fmt.Sprintf(format, a...))
	}
	switch p.Type {
	case Float:
		x, ok := number(v)
		if !ok {
			return nil, bad("expected a number, got %s", describe(v))
		}
		return x, s.inRange(p, x)
	case Int:
		x, ok := number(v)
		if !ok {
			return nil, bad("expected an integer, got %s", describe(v))
		}
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			return nil, bad("expected an integer, got %g", x)
		}
		if math.Abs(x) > 1<<53 {
			return nil, bad("expected an integer, got %g, which is too large (integers lie within ±2^53)", x)
		}
		return int(x), s.inRange(p, x)
	case Bool:
		b, ok := v.(bool)
		if !ok {
			return nil, bad("expected true or false, got %s", describe(v))
		}
		return b, nil
	case String:
		str, ok := v.(string)
		if !ok {
			return nil, bad("expected a string, got %s", describe(v))
		}
		if len(p.Choices) > 0 && !slices.Contains(p.Choices, str) {
			return nil, bad("%q is not one of %s%s", str, strings.Join(p.Choices, ", "), DidYouMean(str, p.Choices))
		}
		return str, nil
	case Sched:
		if x, ok := number(v); ok {
			return sched.Constant(x), s.inRange(p, x)
		}
		sc, ok := v.(sched.Schedule)
		if !ok {
			return nil, bad("expected a number, a schedule or a function of the round, got %s", describe(v))
		}
		if b, ok := sc.(sched.Bounded); ok {
			lo, hi := b.Range()
			if err := s.inRange(p, lo); err != nil {
				return nil, err
			}
			if err := s.inRange(p, hi); err != nil {
				return nil, err
			}
		}
		return sc, nil
	case Floats:
		var xs []float64
		switch l := v.(type) {
		case []float64:
			xs = append([]float64(nil), l...)
		case []any:
			for i, e := range l {
				x, ok := number(e)
				if !ok {
					return nil, bad("element %d: expected a number, got %s", i+1, describe(e))
				}
				xs = append(xs, x)
			}
		default:
			return nil, bad("expected a list of numbers, got %s", describe(v))
		}
		for _, x := range xs {
			if err := s.inRange(p, x); err != nil {
				return nil, err
			}
		}
		return xs, nil
	case Component:
		if n, ok := v.(string); ok {
			if _, found := Lookup(p.Kind, n); !found {
				return nil, bad("%v", unknownName(p.Kind, n))
			}
			return n, nil
		}
		mu.RLock()
		t, known := types[p.Kind]
		mu.RUnlock()
		if v == nil || !known || !reflect.TypeOf(v).AssignableTo(t) {
			return nil, bad("expected a %s or the name of one, got %s", p.Kind, describe(v))
		}
		return v, nil
	}
	return nil, bad("undeclared type")
}

func (s *Spec) inRange(p Param, x float64) error {
	if math.IsNaN(x) {
		return fmt.Errorf("%s: parameter %q: NaN is not allowed", s.Title(), p.Name)
	}
	if math.IsInf(x, 0) && !infiniteDefault(p) {
		return fmt.Errorf("%s: parameter %q = %g: want a finite number%s", s.Title(), p.Name, x, rangeHint(p))
	}
	if p.Min != nil && x < *p.Min {
		return fmt.Errorf("%s: parameter %q = %g is below its minimum %g", s.Title(), p.Name, x, *p.Min)
	}
	if p.Max != nil && x > *p.Max {
		return fmt.Errorf("%s: parameter %q = %g is above its maximum %g", s.Title(), p.Name, x, *p.Max)
	}
	return nil
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case float64, int:
		return fmt.Sprintf("the number %v", x)
	case []any, []float64:
		return "a list"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

// infiniteDefault reports whether p's default is ±∞ (FedPD's γ = ∞ turns
// a term off): only such parameters accept an infinite value; elsewhere ∞
// (1/0, math.huge) is a mistake that would run to +Inf or NaN.
func infiniteDefault(p Param) bool {
	switch d := p.Default.(type) {
	case float64:
		return math.IsInf(d, 0)
	case sched.Schedule:
		return math.IsInf(d.At(0), 0)
	}
	return false
}

// rangeHint is " (range: …)" for a parameter with a range, or "".
func rangeHint(p Param) string {
	if r := p.RangeText(); r != "" {
		return " (range: " + r + ")"
	}
	return ""
}
