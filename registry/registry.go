// Package registry is fedlab's typed component registry.
//
// Every component (algorithm, loss, regularizer, mirror map, dataset, metric,
// schedule, topology) registers itself from an init function, the way database/sql
// drivers do, under a kind and a name, with a declared parameter list. The
// registry validates raw parameter maps (decoded from Lua) against those
// declarations and is the single source for `fedlab list`, `fedlab describe`
// and the generated docs/components.md.
package registry

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Kind names a family of components that share a Go interface.
type Kind string

// The component kinds known to fedlab.
const (
	Algorithm   Kind = "algorithm"
	Loss        Kind = "loss"
	Regularizer Kind = "regularizer"
	Mirror      Kind = "mirror"
	Dataset     Kind = "dataset"
	Metric      Kind = "metric"
	Schedule    Kind = "schedule"
	Topology    Kind = "topology"
	Optimizer   Kind = "optimizer"
	// System effects applied by the engine (see core/effects.go).
	Availability Kind = "availability"
	Compressor   Kind = "compressor"
	Privacy      Kind = "privacy"
)

// Kinds lists every kind in display order.
var Kinds = []Kind{Algorithm, Loss, Regularizer, Mirror, Dataset, Metric, Schedule, Topology, Optimizer, Availability, Compressor, Privacy}

// Spec describes one registered component.
type Spec struct {
	Kind   Kind
	Name   string
	Doc    string // one line
	Params []Param

	crossCheck func(Args) error                   // cross-parameter check after Validate (Define's Checker)
	size       func(Args) (uint64, string, error) // the memory the component declares (Define's Sizer)
}

// Size returns the memory in bytes a component built from a will hold, as
// the component declares it (Define's Sizer), and names the values that
// determine it; ok is false for components that declare none.
func (s *Spec) Size(a Args) (bytes uint64, what string, ok bool) {
	if s.size == nil {
		return 0, "", false
	}
	bytes, what, err := s.size(a)
	return bytes, what, err == nil
}

// Param returns the declaration of the named parameter.
func (s *Spec) Param(name string) (Param, bool) {
	for _, p := range s.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// ParamNames lists the declared parameter names in declaration order.
func (s *Spec) ParamNames() []string {
	names := make([]string, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
	}
	return names
}

// Title is "kind name", as used in error messages.
func (s *Spec) Title() string { return fmt.Sprintf("%s %q", s.Kind, s.Name) }

type entry struct {
	spec  *Spec
	build func(Args) (any, error)
}

var (
	mu      sync.RWMutex
	entries = map[Kind]map[string]*entry{}
	types   = map[Kind]reflect.Type{}
)

// Register adds a component of kind k whose factory returns a T. It panics on
// a duplicate name, an invalid declaration, or a T that differs from the type
// other components of the same kind registered with: these are programming
// errors found at start-up.
func Register[T any](k Kind, spec Spec, build func(Args) (T, error)) {
	mu.Lock()
	defer mu.Unlock()
	t := reflect.TypeFor[T]()
	if old, ok := types[k]; ok && old != t {
		panic(fmt.Sprintf("registry: %s %q registered as %v, but kind %s holds %v", k, spec.Name, t, k, old))
	}
	spec.Kind = k
	if err := spec.check(); err != nil {
		panic("registry: " + err.Error())
	}
	if _, dup := entries[k][spec.Name]; dup {
		panic(fmt.Sprintf("registry: %s %q registered twice", k, spec.Name))
	}
	types[k] = t
	if entries[k] == nil {
		entries[k] = map[string]*entry{}
	}
	s := spec
	entries[k][spec.Name] = &entry{spec: &s, build: func(a Args) (any, error) { return build(a) }}
}

// Lookup returns the spec of a registered component.
func Lookup(k Kind, name string) (*Spec, bool) {
	mu.RLock()
	defer mu.RUnlock()
	e, ok := entries[k][name]
	if !ok {
		return nil, false
	}
	return e.spec, true
}

// Find looks a name up in every kind (for `fedlab describe NAME`).
func Find(name string) []*Spec {
	var out []*Spec
	for _, k := range Kinds {
		if s, ok := Lookup(k, name); ok {
			out = append(out, s)
		}
	}
	return out
}

// Names lists the registered names of kind k, sorted.
func Names(k Kind) []string {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Sorted(maps.Keys(entries[k]))
}

// Specs lists the specs of kind k sorted by name.
func Specs(k Kind) []*Spec {
	var out []*Spec
	for _, n := range Names(k) {
		s, _ := Lookup(k, n)
		out = append(out, s)
	}
	return out
}

// Validate checks raw values against the spec of (k, name) and fills defaults.
func Validate(k Kind, name string, raw map[string]any) (Args, error) {
	s, ok := Lookup(k, name)
	if !ok {
		return Args{}, unknownName(k, name)
	}
	return s.Validate(raw)
}

// Build validates raw and calls the factory of (k, name).
func Build[T any](k Kind, name string, raw map[string]any) (T, error) {
	args, err := Validate(k, name, raw)
	if err != nil {
		var zero T
		return zero, err
	}
	return BuildArgs[T](args)
}

func unknownName(k Kind, name string) error {
	names := Names(k)
	if len(names) == 0 {
		return fmt.Errorf("unknown kind %q", k)
	}
	return fmt.Errorf("unknown %s %q%s; known: %s", k, name, DidYouMean(name, names), strings.Join(names, ", "))
}
