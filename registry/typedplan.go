package registry

import (
	"fmt"
	"reflect"
)

// declared is a component declared by Define, found by its params type.
type declared struct {
	kind     Kind
	name     string
	defaults reflect.Value // the P given to Define
	fields   []typedField
}

// byParams maps each params type given to Define to its component; a
// type declares one component, so that a typed plan value names it.
var byParams = map[reflect.Type]*declared{}

// paramsFree panics if the params type t already declares a component: a
// type given to Define twice is a declaration error, found at start-up.
func paramsFree(t reflect.Type, k Kind, name string) {
	mu.RLock()
	defer mu.RUnlock()
	if d, dup := byParams[t]; dup {
		panic(fmt.Sprintf("registry: %s %q: params type %v already declares %s %q; give each component its own params type (type B struct{ A } keeps A's fields and methods)",
			k, name, t, d.kind, d.name))
	}
}

// declareParams records that the params type t declares (k, name).
func declareParams(t reflect.Type, k Kind, name string, defaults reflect.Value, fields []typedField) {
	mu.Lock()
	defer mu.Unlock()
	byParams[t] = &declared{kind: k, name: name, defaults: defaults, fields: fields}
}

// ParamsType returns the params type that declares the component (k, name)
// through Define, or nil for a component registered with Register.
func ParamsType(k Kind, name string) reflect.Type {
	mu.RLock()
	defer mu.RUnlock()
	for t, d := range byParams {
		if d.kind == k && d.name == name {
			return t
		}
	}
	return nil
}

// Typed is the typed form of a component's parameters: it starts from the
// registered defaults of the component whose params type is P (as given
// to Define), lets set change fields by name (checked by the compiler),
// and returns that component's kind and name and the raw parameters a
// map would give, one per field. Validate then checks them exactly as it
// checks a map decoded from Lua (bounds, choices, Checker, Sizer).
//
// Every field is taken as given, zero values included (Lambda = 0 is
// λ = 0), since the value starts from the defaults and not from Go's zero
// value. A field that cannot hold a value counts as not given: a nil
// schedule, list or component field, and the empty string of a required
// string, so a required parameter left unset is reported missing and a
// component field left nil takes its registered default. A nil set keeps
// every default.
func Typed[P any](set func(*P)) (Kind, string, map[string]any, error) {
	t := reflect.TypeFor[P]()
	mu.RLock()
	d, ok := byParams[t]
	mu.RUnlock()
	if !ok {
		return "", "", nil, fmt.Errorf("registry: %v declares no component (its package registers none with registry.Define, or is not imported)", t)
	}
	spec, _ := Lookup(d.kind, d.name)
	p := reflect.New(t).Elem()
	p.Set(d.defaults)
	for _, f := range d.fields { // the defaults' lists are not the caller's to change
		if v := p.FieldByIndex(f.index); v.Kind() == reflect.Slice && !v.IsNil() {
			v.Set(reflect.AppendSlice(reflect.MakeSlice(v.Type(), 0, v.Len()), v))
		}
	}
	if set != nil {
		set(p.Addr().Interface().(*P))
	}
	raw := make(map[string]any, len(d.fields))
	for _, f := range d.fields {
		pd, _ := spec.Param(f.name)
		v := p.FieldByIndex(f.index)
		switch {
		case (v.Kind() == reflect.Interface || v.Kind() == reflect.Slice) && v.IsNil() && (pd.Required() || pd.Type == Component):
		case pd.Type == String && pd.Required() && v.String() == "":
		case pd.Type == String:
			raw[f.name] = v.String() // a named string type is a string to Validate
		default:
			raw[f.name] = v.Interface()
		}
	}
	return d.kind, d.name, raw, nil
}

// GoField returns the name of the field of the params type that declares
// the parameter param of the component (k, name), as a Go plan sets it
// (promoted from an embedded struct if need be), or "" for a component
// registered with Register.
func GoField(k Kind, name, param string) string {
	mu.RLock()
	defer mu.RUnlock()
	for t, d := range byParams {
		if d.kind != k || d.name != name {
			continue
		}
		for _, f := range d.fields {
			if f.name == param {
				return t.FieldByIndex(f.index).Name
			}
		}
	}
	return ""
}
