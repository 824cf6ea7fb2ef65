package registry

import (
	"fmt"
	"reflect"
)

// BuildArgs calls the factory of the component whose spec validated a: the
// plan layer validates a component's parameters once, when the plan is
// built, and builds it from those Args for every run without validating
// again.
func BuildArgs[T any](a Args) (T, error) {
	var zero T
	if a.spec == nil {
		return zero, fmt.Errorf("registry: BuildArgs needs validated Args")
	}
	mu.RLock()
	e, ok := entries[a.spec.Kind][a.spec.Name]
	mu.RUnlock()
	if !ok {
		return zero, unknownName(a.spec.Kind, a.spec.Name)
	}
	v, err := e.build(a)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", e.spec.Title(), err)
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("%s builds %T, not %v", e.spec.Title(), v, reflect.TypeFor[T]())
	}
	return t, nil
}
