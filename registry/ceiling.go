package registry

import (
	"reflect"

	"github.com/fedlab/fedlab/internal/budget"
)

// Ceiling, embedded in a params struct, is not a parameter: it receives
// the memory ceiling of the plan that builds the component (plan.Limits,
// from fedlab run's --max-memory, see Args.WithCeiling), so that a
// component reading input whose size it cannot declare beforehand (a data
// file; see Sizer) stops its reading there. The zero Ceiling (built from
// Args without a ceiling, or params written in Go) is the default ceiling
// of the process's own limits (budget.Ceiling).
type Ceiling struct {
	budget budget.Budget
	set    bool
}

// Budget is the memory ceiling.
func (c Ceiling) Budget() budget.Budget {
	if !c.set {
		return budget.Ceiling(0)
	}
	return c.budget
}

var ceilingType = reflect.TypeFor[Ceiling]()

// WithCeiling returns a copy of a whose components receive the memory
// ceiling b in their params' embedded Ceiling when built (BuildArgs).
func (a Args) WithCeiling(b budget.Budget) Args {
	a.ceiling = &b
	return a
}

// ceilingIndex is the index path of the Ceiling embedded in the params
// struct t, or nil if it has none.
func ceilingIndex(t reflect.Type) []int {
	f, ok := t.FieldByName("Ceiling")
	if !ok || f.Type != ceilingType || !f.Anonymous {
		return nil
	}
	return f.Index
}

// setCeiling sets the Ceiling of the params p at index (if not nil) to a's
// ceiling, if a has one.
func (a Args) setCeiling(p reflect.Value, index []int) {
	if index != nil && a.ceiling != nil {
		p.FieldByIndex(index).Set(reflect.ValueOf(Ceiling{budget: *a.ceiling, set: true}))
	}
}
