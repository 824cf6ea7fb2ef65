package registry

import (
	"context"
	"fmt"
	"io"
	"maps"

	"github.com/fedlab/fedlab/internal/budget"
)

// BuildContext is what the plan that builds a component gives its factory
// (DefineWith), as Caddy's Provision(ctx) gives a module its context: the
// memory ceiling a reader of files stops at, the context whose end stops a
// long build, and where the component's notices go. The zero BuildContext
// (Build, BuildArgs of Args given none, a component built in Go) has the
// default ceiling of the process's own limits, no deadline and no notices.
type BuildContext struct {
	// Memory is the memory ceiling (plan.Limits, from fedlab run's
	// --max-memory); the zero Budget stands for the default (see Budget).
	Memory budget.Budget
	// Context, if set, ends the build when done (fedlab run's --timeout,
	// Ctrl-C).
	Context context.Context
	// Notices, if set, receives the lines a component writes with Note
	// (fedlab run's stderr).
	Notices io.Writer
}

// Budget is the memory ceiling: Memory, or, if it is zero, the default
// share of the process's own limits (budget.Ceiling).
func (c BuildContext) Budget() budget.Budget {
	if c.Memory == (budget.Budget{}) {
		return budget.Ceiling(0)
	}
	return c.Memory
}

// Err is the cause of the end of Context, or nil while it runs (or if there
// is none).
func (c BuildContext) Err() error {
	if c.Context == nil || c.Context.Err() == nil {
		return nil
	}
	return context.Cause(c.Context)
}

// Note writes one line, "fedlab: " and the formatted text, to Notices, if
// set: what a component did that the user did not ask for in so many words
// (writers a filter dropped). The caller escapes text taken from data
// files.
func (c BuildContext) Note(format string, args ...any) {
	if c.Notices != nil {
		fmt.Fprintf(c.Notices, "fedlab: "+format+"\n", args...)
	}
}

// WithContext returns a copy of a whose component is built with c
// (BuildArgs): the factory of a component registered with DefineWith
// receives it.
func (a Args) WithContext(c BuildContext) Args {
	a.build = c
	return a
}

// WithPaths returns a copy of a whose path parameters (Param.Path) hold
// resolve(p, value) instead of each value given (a value equal to the
// parameter's default is not given), or resolve's first error. The values
// stay validated: a path is a string whatever it resolves to.
func (a Args) WithPaths(resolve func(p Param, value string) (string, error)) (Args, error) {
	var vals map[string]any
	for _, p := range a.spec.Params {
		s, ok := a.vals[p.Name].(string)
		if !p.Path || !ok || p.Default == s {
			continue
		}
		r, err := resolve(p, s)
		if err != nil {
			return Args{}, err
		}
		if r == s {
			continue
		}
		if vals == nil {
			vals = maps.Clone(a.vals)
		}
		vals[p.Name] = r
	}
	if vals != nil {
		a.vals = vals
	}
	return a, nil
}

// BuildContext is the context the component of a is built with (see
// WithContext); factories registered with Register read it here.
func (a Args) BuildContext() BuildContext { return a.build }
