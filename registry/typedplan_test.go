package registry_test

import (
	"reflect"
	"testing"

	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// The typed form starts from the registered defaults, takes every field as
// given (zero values included) and validates to the same Args as the map
// form with the same values.
func TestTypedStartsFromTheDefaults(t *testing.T) {
	k, name, raw, err := registry.Typed(func(p *typedParams) {
		p.Lambda = 0
		p.Steps = 5
		p.Mode = "b"
		p.Widths[0] = 9 // a copy: the registered default stays {1, 2}
	})
	if err != nil {
		t.Fatal(err)
	}
	if k != typedKind || name != "typed" {
		t.Fatalf("component %s %q, want %s \"typed\"", k, name, typedKind)
	}
	want := map[string]any{"lambda": 0.0, "eta": sched.Constant(0.5), "steps": 5, "fast": false, "mode": "b", "widths": []float64{9, 2}}
	if !reflect.DeepEqual(raw, want) {
		t.Fatalf("raw %#v, want %#v (the nil gadget left out: its default)", raw, want)
	}
	typed, err := registry.Validate(k, name, raw)
	if err != nil {
		t.Fatal(err)
	}
	mapped, err := registry.Validate(typedKind, "typed", map[string]any{"lambda": 0, "steps": 5, "mode": "b", "widths": []any{9.0, 2.0}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(typed.Values(), mapped.Values()) {
		t.Fatalf("typed %v, map form %v", typed.Values(), mapped.Values())
	}
	_, _, raw, _ = registry.Typed[typedParams](nil)
	if got := raw["widths"]; !reflect.DeepEqual(got, []float64{1, 2}) {
		t.Fatalf("defaults changed by a typed value: widths %v", got)
	}
	// A value the map form refuses is refused with the same message.
	_, _, raw, _ = registry.Typed(func(p *typedParams) { p.Lambda = 11; p.Mode = "c" })
	_, err = registry.Validate(typedKind, "typed", raw)
	wantAll(t, err, `test_typed_kind "typed": parameter "lambda" = 11 is above its maximum 10`, `"c" is not one of a, b`)
}

// requiredParams has required parameters that a Go value can leave unset.
type requiredParams struct {
	Lambda sched.Schedule `param:"lambda,required" doc:"weight"`
	Path   string         `param:"path,required" doc:"file"`
	Scale  float64        `param:"scale,required" doc:"scale"`
}

func init() {
	registry.Define(typedKind, "required", "a component with required parameters", requiredParams{},
		func(requiredParams) (widget, error) { return widget{}, nil })
}

// A nil schedule and an empty required string are not given: Validate
// reports them missing; a number is taken as given.
func TestTypedLeavesUnsetRequiredParametersMissing(t *testing.T) {
	_, _, raw, err := registry.Typed[requiredParams](nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"scale": 0.0}; !reflect.DeepEqual(raw, want) {
		t.Fatalf("raw %#v, want %#v", raw, want)
	}
	_, err = registry.Validate(typedKind, "required", raw)
	wantAll(t, err, `missing required parameter "lambda"`, `missing required parameter "path"`)
}

// A params type names one component: a second Define with it panics, and a
// type no Define declared is an error naming it.
func TestTypedParamsNameOneComponent(t *testing.T) {
	if got := registry.ParamsType(typedKind, "typed"); got != reflect.TypeFor[typedParams]() {
		t.Fatalf("ParamsType = %v", got)
	}
	for param, want := range map[string]string{"lambda": "Lambda", "eta": "Eta", "widths": "Widths", "none": ""} {
		if got := registry.GoField(typedKind, "typed", param); got != want {
			t.Errorf("GoField(%q) = %q, want %q (eta is promoted from an embedded struct)", param, got, want)
		}
	}
	msg := mustPanic(t, "reused params type", func() {
		registry.Define(typedKind, "typed_again", "d", typedParams{}, func(typedParams) (widget, error) { return widget{}, nil })
	})
	if want := `registry: test_typed_kind "typed_again": params type registry_test.typedParams already declares test_typed_kind "typed"; give each component its own params type (type B struct{ A } keeps A's fields and methods)`; msg != want {
		t.Fatalf("panic %q, want %q", msg, want)
	}
	_, _, _, err := registry.Typed[struct{ X int }](nil)
	if err == nil || err.Error() != "registry: struct { X int } declares no component (its package registers none with registry.Define, or is not imported)" {
		t.Fatalf("error %v", err)
	}
}
