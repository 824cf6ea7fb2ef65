package registry_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

const typedKind = registry.Kind("test_typed_kind")

// mode is a named string type: its field receives the validated choice.
type mode string

type rateGroup struct {
	Eta sched.Schedule `param:"eta" min:"0" doc:"step size"`
}

type typedParams struct {
	Lambda float64 `param:"lambda,required" min:"0" max:"10" doc:"weight"`
	rateGroup
	Steps  int       `param:"steps" min:"1" doc:"steps"`
	Fast   bool      `param:"fast" doc:"go fast"`
	Mode   mode      `param:"mode" choices:"a|b" doc:"mode"`
	Widths []float64 `param:"widths" doc:"widths"`
	Gadget gadget    `param:"gadget" kind:"test_gadget_kind" default:"box" doc:"a gadget"`
}

var lastTyped typedParams

func init() {
	registry.Define(typedKind, "typed", "a component with typed parameters",
		typedParams{rateGroup: rateGroup{Eta: sched.Constant(0.5)}, Steps: 3, Mode: "a", Widths: []float64{1, 2}},
		func(p typedParams) (widget, error) {
			lastTyped = p
			return widget{}, nil
		})
}

// The declaration comes from the struct: names, types, defaults (from the
// prototype), bounds, choices and docs, in field order, embedded groups
// flattened.
func TestDefineDeclaresFromTheStruct(t *testing.T) {
	s, ok := registry.Lookup(typedKind, "typed")
	if !ok {
		t.Fatal("not registered")
	}
	if got := s.ParamNames(); !reflect.DeepEqual(got, []string{"lambda", "eta", "steps", "fast", "mode", "widths", "gadget"}) {
		t.Fatalf("names %v", got)
	}
	want := map[string]struct {
		typ registry.Type
		def any
	}{
		"lambda": {registry.Float, nil}, "eta": {registry.Sched, 0.5}, "steps": {registry.Int, 3},
		"fast": {registry.Bool, false}, "mode": {registry.String, "a"}, "widths": {registry.Floats, []float64{1, 2}},
		"gadget": {registry.Component, "box"},
	}
	for _, p := range s.Params {
		w := want[p.Name]
		if p.Type != w.typ || !reflect.DeepEqual(p.Default, w.def) || p.Doc == "" {
			t.Errorf("%s: type %v default %#v doc %q; want %v %#v", p.Name, p.Type, p.Default, p.Doc, w.typ, w.def)
		}
	}
	lambda, _ := s.Param("lambda")
	if *lambda.Min != 0 || *lambda.Max != 10 {
		t.Errorf("lambda bounds %v %v", *lambda.Min, *lambda.Max)
	}
	if m, _ := s.Param("mode"); !reflect.DeepEqual(m.Choices, []string{"a", "b"}) {
		t.Errorf("mode choices %v", m.Choices)
	}
	if g, _ := s.Param("gadget"); g.Kind != gadgetKind {
		t.Errorf("gadget kind %q", g.Kind)
	}
}

// The factory receives the validated values and the defaults as typed fields.
func TestDefineFillsTheStruct(t *testing.T) {
	_, err := registry.Build[widget](typedKind, "typed", map[string]any{"lambda": 2, "mode": "b", "gadget": box{9}, "fast": true})
	if err != nil {
		t.Fatal(err)
	}
	p := lastTyped
	if p.Lambda != 2 || p.Eta.At(0) != 0.5 || p.Steps != 3 || !p.Fast || p.Mode != "b" ||
		!reflect.DeepEqual(p.Widths, []float64{1, 2}) || p.Gadget.Size() != 9 {
		t.Fatalf("filled %+v", p)
	}
	if _, err := registry.Build[widget](typedKind, "typed", map[string]any{"lambda": 1}); err != nil {
		t.Fatal(err)
	}
	if lastTyped.Gadget.Size() != 3 {
		t.Fatalf("default gadget by name: %v", lastTyped.Gadget)
	}
}

// Strict decoding is the registry's: every error at once, with did-you-mean.
func TestDefineDecodesStrictly(t *testing.T) {
	_, err := registry.Build[widget](typedKind, "typed", map[string]any{"lamda": 1, "steps": 0.5, "mode": "c"})
	wantAll(t, err, `unknown parameter "lamda"`, `did you mean "lambda"`, "valid keys: lambda, eta, steps",
		`parameter "steps": expected an integer`, `"c" is not one of a, b`, `missing required parameter "lambda"`)
}

// define returns a function that defines a component with parameters P.
func define[P any](name string, proto P) func() {
	return func() {
		registry.Define(registry.Kind("test_typed_panics"), name, "d", proto, func(P) (widget, error) { return widget{}, nil })
	}
}

// Declaration mistakes are found at start-up.
func TestDefinePanics(t *testing.T) {
	for _, c := range []struct {
		name, want string
		define     func()
	}{
		{"untagged", "has no param tag", define("untagged", struct{ X float64 }{})},
		{"option", `unknown option "optional"`, define("option", struct {
			X float64 `param:"x,optional" doc:"x"`
		}{})},
		{"type", "has no parameter type", define("type", struct {
			X complex128 `param:"x" doc:"x"`
		}{})},
		{"schedule", "must be a sched.Constant", define("schedule", struct {
			X sched.Schedule `param:"x" doc:"x"`
		}{})},
		{"bound", "is not a number", define("bound", struct {
			X float64 `param:"x" min:"zero" doc:"x"`
		}{})},
		{"doc", "has no doc", define("doc", struct {
			X float64 `param:"x"`
		}{})},
		{"not a struct", "must be a struct", define("scalar", 1.0)},
		{"path", `parameter "n": the path option needs a string field, not int`, define("path", struct {
			N int `param:"n,path" doc:"n"`
		}{})},
	} {
		if msg := mustPanic(t, c.name, c.define); !strings.Contains(msg, c.want) {
			t.Errorf("%s: panic %q, want %q", c.name, msg, c.want)
		}
	}
}

// checkedParams constrain each other: Lo ≤ Hi.
type checkedParams struct {
	Lo float64 `param:"lo" doc:"low"`
	Hi float64 `param:"hi" doc:"high"`
}

func (p checkedParams) Check() error {
	if p.Lo > p.Hi {
		return errors.New("lo must not exceed hi")
	}
	return nil
}

func init() {
	registry.Define(typedKind, "checked", "a component with a cross-parameter check", checkedParams{Hi: 1},
		func(checkedParams) (widget, error) { return widget{}, nil })
}

// A params struct's Check runs at validation, after every parameter is
// valid, and its error names the component.
func TestDefineRunsCheckAtValidation(t *testing.T) {
	if _, err := registry.Validate(typedKind, "checked", map[string]any{"lo": 0.5}); err != nil {
		t.Fatal(err)
	}
	_, err := registry.Validate(typedKind, "checked", map[string]any{"lo": 2})
	wantAll(t, err, `test_typed_kind "checked"`, "lo must not exceed hi")
}

// pathParams declare input paths with the path option.
type pathParams struct {
	Train string `param:"train,required,path" doc:"training file"`
	Test  string `param:"test,path" doc:"test file"`
	Name  string `param:"name" doc:"a name, not a path"`
}

func init() {
	registry.Define(typedKind, "paths", "a component that reads files", pathParams{},
		func(pathParams) (widget, error) { return widget{}, nil })
}

// The path option declares a String parameter as an input path
// (Param.Path, shown as "path"), required or not; other strings are not
// paths whatever their name.
func TestDefineDeclaresPaths(t *testing.T) {
	spec, _ := registry.Lookup(typedKind, "paths")
	var got []string
	for _, p := range spec.Params {
		got = append(got, fmt.Sprintf("%s %s %v required=%v", p.Name, p.TypeText(), p.Type, p.Required()))
	}
	want := []string{"train path string required=true", "test path string required=false", "name string string required=false"}
	if !slices.Equal(got, want) {
		t.Errorf("params %q, want %q", got, want)
	}
}
