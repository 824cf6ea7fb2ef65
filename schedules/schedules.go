// Package schedules registers schedule components: values of a step size or
// of λ that change with the round (homotopy / continuation schedules).
package schedules

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// ConstantParams are the parameters of the schedule "constant".
type ConstantParams struct {
	Value float64 `param:"value,required" doc:"the value"`
}

// PiecewiseParams are the parameters of the schedule "piecewise": its
// values and boundaries.
type PiecewiseParams struct {
	Values     []float64 `param:"values,required" doc:"the values, one more than the boundaries"`
	Boundaries []float64 `param:"boundaries" min:"0" doc:"increasing rounds at which the next value starts"`
}

func init() {
	registry.Define(registry.Schedule, "constant", "the same value at every round", ConstantParams{},
		func(p ConstantParams) (sched.Schedule, error) { return sched.Constant(p.Value), nil })
	registry.Define(registry.Schedule, "geometric",
		"start·factor^⌊r/every⌋, never below floor (homotopy: geometric decrease to a target)",
		Geometric{Factor: 0.5, Every: 1}, func(g Geometric) (sched.Schedule, error) { return g, nil })
	registry.Define(registry.Schedule, "piecewise", "values[i] from round boundaries[i-1] on (piecewise constant)",
		PiecewiseParams{Boundaries: []float64{}}, func(p PiecewiseParams) (sched.Schedule, error) {
			return NewPiecewise(p.Values, p.Boundaries)
		})
	registry.Define(registry.Schedule, "poly",
		"scale / (offset + r)^power (e.g. power 1/3 for η_t = lr/(w+t)^{1/3}, 1/2 for 1/√t decay)",
		Poly{Offset: 1, Power: 0.5}, func(p Poly) (sched.Schedule, error) { return p, nil })
}

// Geometric is Start·Factor^⌊r/Every⌋ clipped at Floor.
type Geometric struct {
	Start  float64 `param:"start,required" doc:"value at round 0"`
	Factor float64 `param:"factor" min:"0" doc:"multiplier applied every \"every\" rounds"`
	Every  int     `param:"every" min:"1" doc:"rounds between multiplications"`
	Floor  float64 `param:"floor" doc:"target: the value never goes below it (never above it if factor > 1 and floor > start)"`
}

// At returns the value of round r.
func (g Geometric) At(r int) float64 {
	return g.clip(g.Start * math.Pow(g.Factor, float64(r/g.Every)))
}

// clip applies the floor: a cap when the value grows towards it, a lower
// bound otherwise. It is nondecreasing in v.
func (g Geometric) clip(v float64) float64 {
	if g.Factor > 1 && g.Floor > g.Start {
		return math.Min(v, g.Floor)
	}
	return math.Max(v, g.Floor)
}

// Range returns the smallest and largest values over all rounds, the limit
// as r → ∞ included. Start·Factor^k is monotone in k and clip is
// nondecreasing, so the extremes are at round 0 and in the limit.
func (g Geometric) Range() (float64, float64) {
	var lim float64
	switch {
	case g.Factor < 1 || g.Start == 0:
		lim = 0
	case g.Factor == 1:
		lim = g.Start
	default:
		lim = math.Copysign(math.Inf(1), g.Start)
	}
	a, b := g.clip(g.Start), g.clip(lim)
	return min(a, b), max(a, b)
}

// Piecewise is a piecewise-constant schedule.
type Piecewise struct {
	Values     []float64
	Boundaries []int
}

// NewPiecewise checks that there is one more value than boundaries and that
// the boundaries are increasing integers.
func NewPiecewise(values, boundaries []float64) (Piecewise, error) {
	if len(values) != len(boundaries)+1 {
		return Piecewise{}, fmt.Errorf("needs one more value than boundaries, got %d values and %d boundaries", len(values), len(boundaries))
	}
	p := Piecewise{Values: values}
	for i, b := range boundaries {
		if b != math.Trunc(b) || b > math.MaxInt32 || (i > 0 && b <= boundaries[i-1]) {
			return Piecewise{}, fmt.Errorf("boundaries must be increasing integers, got %v", boundaries)
		}
		p.Boundaries = append(p.Boundaries, int(b))
	}
	return p, nil
}

// At returns the value of round r.
func (p Piecewise) At(r int) float64 {
	i := 0
	for i < len(p.Boundaries) && r >= p.Boundaries[i] {
		i++
	}
	return p.Values[i]
}

// Range returns the smallest and largest values.
func (p Piecewise) Range() (float64, float64) { return sched.Table(p.Values).Range() }

// Poly is Scale / (Offset + r)^Power.
type Poly struct {
	Scale  float64 `param:"scale,required" doc:"numerator"`
	Offset float64 `param:"offset" min:"0" doc:"added to the round index; must make offset + r > 0"`
	Power  float64 `param:"power" doc:"exponent of the decay"`
}

// Check refuses offset 0 with power > 0 (as a registered schedule).
func (p Poly) Check() error {
	if p.Offset == 0 && p.Power > 0 {
		return fmt.Errorf("offset must be > 0 when power > 0 (round 0 would divide by zero)")
	}
	return nil
}

// At returns the value of round r.
func (p Poly) At(r int) float64 { return p.Scale / math.Pow(p.Offset+float64(r), p.Power) }

// Range returns the smallest and largest values over all rounds, the limit
// as r → ∞ included (the values are monotone in r).
func (p Poly) Range() (float64, float64) {
	var lim float64
	switch {
	case p.Power > 0 || p.Scale == 0:
		lim = 0
	case p.Power == 0:
		lim = p.Scale
	default:
		lim = math.Copysign(math.Inf(1), p.Scale)
	}
	first := p.At(0)
	return min(first, lim), max(first, lim)
}
