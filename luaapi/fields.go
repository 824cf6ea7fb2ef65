package luaapi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// fields reads the values of a call table checked by callTable.read. Each
// getter checks the value's type; mistakes are collected (error reports
// them all) and the getter returns its zero value.
type fields struct {
	call *callTable
	name string // the call as messages show it; "" means call.Name
	t    *lua.LTable
	errs []error
}

// fn is the call as messages show it.
func (f *fields) fn() string {
	if f.name != "" {
		return f.name
	}
	return f.call.Name
}

// fail records err (nil is ignored).
func (f *fields) fail(err error) {
	if err != nil {
		f.errs = append(f.errs, err)
	}
}

// error reports every mistake found so far, or nil.
func (f *fields) error() error { return errors.Join(f.errs...) }

// what names key in messages.
func (f *fields) what(key string) string { return fmt.Sprintf("%s: key %q", f.fn(), key) }

// get returns the raw value of key (LNil if absent). Reading a key the
// call does not declare is a programming error.
func (f *fields) get(key string) lua.LValue {
	if _, ok := f.call.key(key); !ok {
		panic(fmt.Sprintf("luaapi: %s reads the undeclared key %q", f.call.Name, key))
	}
	return f.t.RawGetString(key)
}

// integer reads an integer ≥ lo, or def if absent.
func (f *fields) integer(key string, def, lo int) int {
	v := f.get(key)
	if v == lua.LNil {
		return def
	}
	x, err := integer(v, lo, f.what(key))
	f.fail(err)
	return x
}

// number reads a finite number ≥ lo, or def if absent.
func (f *fields) number(key string, def, lo float64) float64 {
	switch v := f.get(key).(type) {
	case *lua.LNilType:
		return def
	case lua.LNumber:
		if !(float64(v) >= lo) {
			f.fail(fmt.Errorf("%s: expected a number ≥ %g, got %v", f.what(key), lo, v))
		} else if math.IsInf(float64(v), 1) { // no key of fedlab means anything by ∞ (identities cannot hold it)
			f.fail(fmt.Errorf("%s: expected a finite number ≥ %g, got %v", f.what(key), lo, v))
		}
		return float64(v)
	default:
		f.fail(fmt.Errorf("%s: expected a number, got %s", f.what(key), typeText(v)))
		return 0
	}
}

// callName reads the key name of a call: free text stored in the run
// directory, so refused unless it is valid UTF-8, as labels are
// (experiment.ValidText; it was stored with U+FFFD for the invalid bytes).
func (f *fields) callName() string {
	name := f.str("name", "")
	if err := experiment.ValidText("name", name); err != nil {
		f.fail(fmt.Errorf("%s: %w", f.what("name"), err))
	}
	return name
}

// boolean reads a boolean, or def if absent.
func (f *fields) boolean(key string, def bool) bool {
	switch v := f.get(key).(type) {
	case *lua.LNilType:
		return def
	case lua.LBool:
		return bool(v)
	default:
		f.fail(fmt.Errorf("%s: expected true or false, got %s", f.what(key), typeText(v)))
		return false
	}
}

// str reads a string, or def if absent; with choices, it must be one of them.
func (f *fields) str(key, def string, choices ...string) string {
	switch v := f.get(key).(type) {
	case *lua.LNilType:
		return def
	case lua.LString:
		if len(choices) > 0 && !slices.Contains(choices, string(v)) {
			f.fail(fmt.Errorf("%s: %q is not one of %s%s", f.what(key), string(v), strings.Join(choices, ", "), registry.DidYouMean(string(v), choices)))
		}
		return string(v)
	default:
		f.fail(fmt.Errorf("%s: expected a string, got %s", f.what(key), typeText(v)))
		return ""
	}
}

// list reads a list (nil if absent).
func (f *fields) list(key string) []lua.LValue {
	switch v := f.get(key).(type) {
	case *lua.LNilType:
		return nil
	case *lua.LTable:
		out, err := list(v, f.what(key))
		f.fail(err)
		return out
	default:
		f.fail(fmt.Errorf("%s: expected a list, got %s", f.what(key), typeText(v)))
		return nil
	}
}

// integers reads a list of integers ≥ lo (nil if absent).
func (f *fields) integers(key string, lo int) []int {
	var out []int
	for i, v := range f.list(key) {
		x, err := integer(v, lo, fmt.Sprintf("%s element %d", f.what(key), i+1))
		f.fail(err)
		out = append(out, x)
	}
	return out
}

// strings reads a list of strings (nil if absent).
func (f *fields) strings(key string) []string {
	var out []string
	for i, v := range f.list(key) {
		s, ok := v.(lua.LString)
		if !ok {
			f.fail(fmt.Errorf("%s element %d: expected a string, got %s", f.what(key), i+1, typeText(v)))
		}
		out = append(out, string(s))
	}
	return out
}

// component reads a component of the given kind (nil if absent).
func (f *fields) component(key string, kind registry.Kind) *component {
	v := f.get(key)
	if v == lua.LNil {
		return nil
	}
	c, err := asComponent(v, kind, f.what(key))
	f.fail(err)
	return c
}

// numbers reads a list of numbers (nil if absent).
func (f *fields) numbers(key string) []float64 {
	var out []float64
	for i, v := range f.list(key) {
		x, ok := v.(lua.LNumber)
		if !ok {
			f.fail(fmt.Errorf("%s element %d: expected a number, got %s", f.what(key), i+1, typeText(v)))
		}
		out = append(out, float64(x))
	}
	return out
}
