package luaapi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

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
	f.declared(key)
	return f.t.RawGetString(key)
}

// declared returns the declaration of name, which must have one of the
// given types (any type if none is given).
func (f *fields) declared(name string, types ...valueType) key {
	k, ok := f.call.key(name)
	if !ok || (len(types) > 0 && !slices.Contains(types, k.Type)) {
		panic(fmt.Sprintf("luaapi: %s reads the key %q as a %v, which it does not declare", f.call.Name, name, types))
	}
	return k
}

// integer reads an integer ≥ 0 (its declared default if absent).
func (f *fields) integer(name string) int {
	k := f.declared(name, tInteger)
	v := f.t.RawGetString(name)
	if v == lua.LNil {
		d, _ := k.Default.(int)
		return d
	}
	x, err := integer(v, 0, f.what(name))
	f.fail(err)
	return x
}

// number reads a finite number ≥ 0 (its declared default if absent).
func (f *fields) number(name string) float64 {
	k := f.declared(name, tNumber)
	switch v := f.t.RawGetString(name).(type) {
	case *lua.LNilType:
		d, _ := k.Default.(float64)
		return d
	case lua.LNumber:
		if !(float64(v) >= 0) || math.IsInf(float64(v), 0) {
			f.fail(fmt.Errorf("%s: expected a finite number ≥ 0, got %v", f.what(name), v))
		}
		return float64(v)
	default:
		f.fail(fmt.Errorf("%s: expected a number, got %s", f.what(name), typeText(v)))
		return 0
	}
}

// boolean reads a boolean (its declared default if absent).
func (f *fields) boolean(name string) bool {
	k := f.declared(name, tBoolean)
	switch v := f.t.RawGetString(name).(type) {
	case *lua.LNilType:
		d, _ := k.Default.(bool)
		return d
	case lua.LBool:
		return bool(v)
	default:
		f.fail(fmt.Errorf("%s: expected true or false, got %s", f.what(name), typeText(v)))
		return false
	}
}

// str reads a string, one of the declared choices if there are any (its
// declared default if absent).
func (f *fields) str(name string) string {
	k := f.declared(name, tString)
	switch v := f.t.RawGetString(name).(type) {
	case *lua.LNilType:
		d, _ := k.Default.(string)
		return d
	case lua.LString:
		if len(k.Choices) > 0 && !slices.Contains(k.Choices, string(v)) {
			f.fail(fmt.Errorf("%s: %q is not one of %s", f.what(name), string(v), strings.Join(k.Choices, ", ")))
		}
		return string(v)
	default:
		f.fail(fmt.Errorf("%s: expected a string, got %s", f.what(name), typeText(v)))
		return ""
	}
}

// list reads a list (nil if absent).
func (f *fields) list(name string) []lua.LValue {
	f.declared(name, tList, tIntegers, tStrings)
	switch v := f.t.RawGetString(name).(type) {
	case *lua.LNilType:
		return nil
	case *lua.LTable:
		out, err := list(v, f.what(name))
		f.fail(err)
		return out
	default:
		f.fail(fmt.Errorf("%s: expected a list, got %s", f.what(name), typeText(v)))
		return nil
	}
}

// integers reads a list of integers ≥ 0 (nil if absent).
func (f *fields) integers(name string) []int {
	f.declared(name, tIntegers)
	var out []int
	for i, v := range f.list(name) {
		x, err := integer(v, 0, fmt.Sprintf("%s element %d", f.what(name), i+1))
		f.fail(err)
		out = append(out, x)
	}
	return out
}

// strings reads a list of strings (nil if absent).
func (f *fields) strings(name string) []string {
	f.declared(name, tStrings)
	var out []string
	for i, v := range f.list(name) {
		s, ok := v.(lua.LString)
		if !ok {
			f.fail(fmt.Errorf("%s element %d: expected a string, got %s", f.what(name), i+1, typeText(v)))
		}
		out = append(out, string(s))
	}
	return out
}

// component reads a component of the declared kind (nil if absent).
func (f *fields) component(name string) *component {
	k := f.declared(name, tComponent)
	v := f.t.RawGetString(name)
	if v == lua.LNil {
		return nil
	}
	c, err := asComponent(v, k.Kind, f.what(name))
	f.fail(err)
	return c
}
