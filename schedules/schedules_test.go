package schedules_test

import (
	"math"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/registry"
	_ "github.com/fedlab/fedlab/schedules"
	"github.com/fedlab/fedlab/schedules/sched"
)

func build(t *testing.T, name string, raw map[string]any) sched.Schedule {
	t.Helper()
	s, err := registry.Build[sched.Schedule](registry.Schedule, name, raw)
	if err != nil {
		t.Fatalf("%s %v: %v", name, raw, err)
	}
	return s
}

func buildErr(t *testing.T, name string, raw map[string]any, want ...string) {
	t.Helper()
	s, err := registry.Build[sched.Schedule](registry.Schedule, name, raw)
	if err == nil {
		t.Fatalf("%s %v built %#v, want an error", name, raw, s)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s %v: error %q does not contain %q", name, raw, err, w)
		}
	}
}

// near reports whether a and b agree to a relative 1e-12.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func check(t *testing.T, what string, s sched.Schedule, want map[int]float64) {
	t.Helper()
	for r, w := range want {
		if got := s.At(r); !near(got, w) {
			t.Errorf("%s: At(%d) = %.17g, want %.17g", what, r, got, w)
		}
	}
}

func TestAllSchedulesCovered(t *testing.T) {
	tested := map[string]bool{"constant": true, "geometric": true, "piecewise": true, "poly": true}
	for _, n := range registry.Names(registry.Schedule) {
		if !tested[n] {
			t.Errorf("registered schedule %q is not tested", n)
		}
	}
}

func TestConstant(t *testing.T) {
	s := build(t, "constant", map[string]any{"value": 0.3})
	if c, ok := s.(sched.Constant); !ok || c != 0.3 {
		t.Errorf("built %#v, want sched.Constant(0.3)", s)
	}
	buildErr(t, "constant", nil, `missing required parameter "value"`)
}

func TestGeometric(t *testing.T) {
	// Defaults: factor ½ every round, floor 0.
	s := build(t, "geometric", map[string]any{"start": 8})
	check(t, "defaults", s, map[int]float64{0: 8, 1: 4, 2: 2, 3: 1, 10: 8.0 / 1024})

	// start·factor^⌊r/every⌋.
	s = build(t, "geometric", map[string]any{"start": 1, "factor": 0.1, "every": 3})
	check(t, "every 3", s, map[int]float64{0: 1, 1: 1, 2: 1, 3: 0.1, 5: 0.1, 6: 0.01, 8: 0.01, 9: 1e-3})

	// The floor is a target the value never goes below.
	s = build(t, "geometric", map[string]any{"start": 1, "factor": 0.5, "floor": 0.2})
	check(t, "floor", s, map[int]float64{0: 1, 1: 0.5, 2: 0.25, 3: 0.2, 4: 0.2, 1000: 0.2})

	// factor 1 is constant, factor 0 drops to the floor after one period.
	s = build(t, "geometric", map[string]any{"start": 2, "factor": 1})
	check(t, "factor 1", s, map[int]float64{0: 2, 5: 2, 1000: 2})
	s = build(t, "geometric", map[string]any{"start": 2, "factor": 0, "every": 2, "floor": 0.5})
	check(t, "factor 0", s, map[int]float64{0: 2, 1: 2, 2: 0.5, 9: 0.5})

	// factor > 1 with floor above start: the floor is a cap (increase to a target).
	s = build(t, "geometric", map[string]any{"start": 0.1, "factor": 2, "floor": 1})
	check(t, "increase to cap", s, map[int]float64{0: 0.1, 1: 0.2, 2: 0.4, 3: 0.8, 4: 1, 50: 1})
	// factor > 1 with the floor below start: unbounded growth, never below the floor.
	s = build(t, "geometric", map[string]any{"start": 1, "factor": 3, "every": 2})
	check(t, "growth", s, map[int]float64{0: 1, 1: 1, 2: 3, 4: 9, 7: 27})

	// The value stays at the floor forever without underflowing past it.
	s = build(t, "geometric", map[string]any{"start": 1, "floor": 1e-6})
	for r := range 2000 {
		if v := s.At(r); v < 1e-6 {
			t.Fatalf("At(%d) = %g is below the floor", r, v)
		}
	}

	buildErr(t, "geometric", map[string]any{"start": 1, "factor": -0.5}, `"factor" = -0.5 is below its minimum 0`)
	buildErr(t, "geometric", map[string]any{"start": 1, "every": 0}, `"every" = 0 is below its minimum 1`)
	buildErr(t, "geometric", map[string]any{"start": 1, "every": 1.5}, `"every"`, "expected an integer")
	buildErr(t, "geometric", map[string]any{"factor": 0.5}, `missing required parameter "start"`)
}

func TestPiecewise(t *testing.T) {
	// values[i] applies from round boundaries[i-1] on.
	s := build(t, "piecewise", map[string]any{"values": []any{1, 0.5, 0.1}, "boundaries": []any{10, 20}})
	check(t, "piecewise", s, map[int]float64{0: 1, 9: 1, 10: 0.5, 19: 0.5, 20: 0.1, 1000: 0.1})
	b, ok := s.(sched.Bounded)
	if !ok {
		t.Fatal("piecewise is not Bounded")
	}
	if lo, hi := b.Range(); lo != 0.1 || hi != 1 {
		t.Errorf("Range = %g, %g, want 0.1, 1", lo, hi)
	}

	// Without boundaries it is constant; a boundary at 0 skips the first value.
	s = build(t, "piecewise", map[string]any{"values": []any{0.7}})
	check(t, "one value", s, map[int]float64{0: 0.7, 100: 0.7})
	s = build(t, "piecewise", map[string]any{"values": []any{9, 3}, "boundaries": []any{0}})
	check(t, "boundary 0", s, map[int]float64{0: 3, 1: 3})
	s = build(t, "piecewise", map[string]any{"values": []any{1, 2, 3}, "boundaries": []any{1, 2}})
	check(t, "adjacent boundaries", s, map[int]float64{0: 1, 1: 2, 2: 3, 3: 3})

	mismatch := "needs one more value than boundaries"
	buildErr(t, "piecewise", map[string]any{"values": []any{1, 2}}, `schedule "piecewise"`, mismatch, "2 values and 0 boundaries")
	buildErr(t, "piecewise", map[string]any{"values": []any{1, 2}, "boundaries": []any{1, 2}}, mismatch)
	buildErr(t, "piecewise", map[string]any{"values": []any{}, "boundaries": []any{}}, mismatch)
	notIncreasing := "boundaries must be increasing integers"
	buildErr(t, "piecewise", map[string]any{"values": []any{1, 2, 3}, "boundaries": []any{5, 5}}, notIncreasing)
	buildErr(t, "piecewise", map[string]any{"values": []any{1, 2, 3}, "boundaries": []any{5, 3}}, notIncreasing)
	buildErr(t, "piecewise", map[string]any{"values": []any{1, 2}, "boundaries": []any{2.5}}, notIncreasing)
	buildErr(t, "piecewise", map[string]any{"values": []any{1, 2}, "boundaries": []any{-1}}, `"boundaries" = -1 is below its minimum 0`)
	buildErr(t, "piecewise", map[string]any{"values": []any{1, "x"}, "boundaries": []any{1}}, "element 2")
	buildErr(t, "piecewise", nil, `missing required parameter "values"`)
}

func TestPoly(t *testing.T) {
	// Defaults: offset 1, power ½: scale/√(1+r).
	s := build(t, "poly", map[string]any{"scale": 2})
	check(t, "defaults", s, map[int]float64{0: 2, 3: 1, 8: 2.0 / 3, 99: 0.2})

	s = build(t, "poly", map[string]any{"scale": 1, "offset": 7, "power": 1.0 / 3})
	check(t, "cube root", s, map[int]float64{1: 0.5, 20: 1.0 / 3, 57: 0.25})
	// Cube root of 7 is not exact: compare with the formula itself.
	check(t, "cube root formula", s, map[int]float64{0: 1 / math.Cbrt(7), 5: 1 / math.Cbrt(12)})

	s = build(t, "poly", map[string]any{"scale": 3, "offset": 2, "power": 1})
	check(t, "power 1", s, map[int]float64{0: 1.5, 1: 1, 4: 0.5, 10: 0.25})

	// power 0 is a constant, even with offset 0; a negative power grows.
	s = build(t, "poly", map[string]any{"scale": 0.4, "offset": 0, "power": 0})
	check(t, "power 0", s, map[int]float64{0: 0.4, 9: 0.4})
	s = build(t, "poly", map[string]any{"scale": 1, "offset": 0, "power": -2})
	check(t, "power -2", s, map[int]float64{1: 1, 3: 9})

	// A positive power needs offset > 0: round 0 would divide by zero.
	buildErr(t, "poly", map[string]any{"scale": 1, "offset": 0}, `schedule "poly"`, "offset must be > 0")
	buildErr(t, "poly", map[string]any{"scale": 1, "offset": 0, "power": 1}, "offset must be > 0")
	buildErr(t, "poly", map[string]any{"scale": 1, "offset": -1}, `"offset" = -1 is below its minimum 0`)
	buildErr(t, "poly", nil, `missing required parameter "scale"`)
}

// Registered schedules can be used as Sched parameters of other components;
// the bounded ones are range-checked there.
func TestSchedulesAsParameters(t *testing.T) {
	k := registry.Kind("test_kind_xyz_schedules")
	registry.Register[sched.Schedule](k, registry.Spec{Name: "user", Doc: "takes a step", Params: []registry.Param{
		{Name: "step", Type: registry.Sched, Min: registry.Bound(0), Doc: "nonnegative step"}}},
		func(a registry.Args) (sched.Schedule, error) { return a.Schedule("step"), nil })
	neg := build(t, "piecewise", map[string]any{"values": []any{1, -1}, "boundaries": []any{3}})
	_, err := registry.Build[sched.Schedule](k, "user", map[string]any{"step": neg})
	if err == nil || !strings.Contains(err.Error(), "below its minimum 0") {
		t.Errorf("negative piecewise accepted as a nonnegative step: %v", err)
	}
	pos := build(t, "poly", map[string]any{"scale": 1})
	got, err := registry.Build[sched.Schedule](k, "user", map[string]any{"step": pos})
	if err != nil || got.At(3) != 0.5 {
		t.Errorf("poly as step: %v, %v", got, err)
	}
}

// Regressions: a growing geometric never drops below its floor; schedules
// whose values leave a parameter's range are rejected up front; huge
// piecewise boundaries are refused instead of overflowing.
func TestScheduleRangeRegressions(t *testing.T) {
	g := build(t, "geometric", map[string]any{"start": -1.0, "factor": 2.0, "floor": -3.0})
	for r := range 10 {
		if v := g.At(r); v < -3 {
			t.Fatalf("geometric below its floor at round %d: %g", r, v)
		}
	}
	neg := build(t, "geometric", map[string]any{"start": -0.1, "floor": -1.0})
	if _, err := registry.Build[sched.Schedule](registry.Schedule, "constant", map[string]any{"value": 1.0}); err != nil {
		t.Fatal(err)
	}
	spec := registry.Spec{Name: "x", Doc: "x", Params: []registry.Param{{Name: "lambda", Type: registry.Sched, Min: registry.Bound(0), Doc: "d"}}}
	if _, err := spec.Validate(map[string]any{"lambda": neg}); err == nil || !strings.Contains(err.Error(), "below its minimum") {
		t.Fatalf("negative geometric accepted for a λ ≥ 0: %v", err)
	}
	poly := build(t, "poly", map[string]any{"scale": -1.0})
	if _, err := spec.Validate(map[string]any{"lambda": poly}); err == nil {
		t.Fatal("negative poly accepted for a λ ≥ 0")
	}
	buildErr(t, "piecewise", map[string]any{"values": []any{1.0, 2.0}, "boundaries": []any{math.Inf(1)}}, "want a finite number") // refused by the registry now, before the schedule checks its integers
}
