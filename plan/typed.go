package plan

import (
	"maps"

	"github.com/fedlab/fedlab/registry"
)

// Of is the typed form of a Component: P is the params type of a
// registered component (algorithms.FedDualAvgParams,
// regularizers.L1Params, ...: the struct its package gives
// registry.Define), which names the component, and set changes fields of
// a P that starts from the component's registered defaults, so that the
// compiler checks every parameter's name and type:
//
//	plan.Of(func(p *algorithms.FedDualAvgParams) { p.EtaC = sched.Constant(0.002) })
//
// Every field is taken as given, zero values included (the value starts
// from the defaults, not from Go's zero value); a nil schedule, list or
// component field, or an empty required string, counts as not given (see
// registry.Typed). A nil set keeps every default. The Component holds the
// raw parameters a map would, one per field, and the Builder validates
// them as it validates the map form's (bounds, choices, cross-parameter
// checks, declared memory), with the same messages; a P that declares no
// component is an error there.
func Of[P any](set func(*P)) Component {
	k, name, raw, err := registry.Typed(set)
	return Component{Kind: k, Name: name, Params: raw, err: err}
}

// With returns c with its component parameter param (a topology, a server
// optimizer, a schedule) given as the component n, typed (plan.Of) or
// not, as Params[param] = n does; c's own parameters are not changed.
func (c Component) With(param string, n Component) Component {
	c.Params = maps.Clone(c.Params)
	if c.Params == nil {
		c.Params = map[string]any{}
	}
	c.Params[param] = n
	return c
}
