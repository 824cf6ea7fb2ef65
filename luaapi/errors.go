package luaapi

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/internal/escape"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// located is an error whose message already starts with "file:line:" (an
// error inside a Lua function that fedlab called), raised without adding the
// caller's position.
type located struct{ msg string }

func (e located) Error() string { return e.msg }

// raise turns err into a Lua error at the calling script line.
func (in *interp) raise(err error) {
	var loc located
	if errors.As(err, &loc) {
		in.L.Error(lua.LString(loc.msg), 0)
	}
	in.L.RaiseError("%s", err.Error())
}

// goFunc is a Go function called from Lua that reports mistakes as errors.
type goFunc func(L *lua.LState) (int, error)

// protect makes a Lua function of f whose errors, and Go panics, become Lua
// errors at the calling line instead of crashes or Go stack traces.
func (in *interp) protect(f goFunc) *lua.LFunction {
	return in.L.NewFunction(func(L *lua.LState) int {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(*lua.ApiError); ok {
					panic(r) // a Lua error raised on purpose
				}
				L.RaiseError("internal error: %v", r)
			}
		}()
		n, err := f(L)
		if err != nil {
			in.raise(err)
		}
		return n
	})
}

// luaMessage is the message of an error returned by a protected Lua call,
// without gopher-lua's stack traceback.
func luaMessage(err error) string {
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		if s, ok := ae.Object.(lua.LString); ok {
			return strings.TrimSpace(string(s))
		}
		return ae.Object.String()
	}
	return err.Error()
}

// runtimeError formats an error raised while the script ran as
// "name:LINE: message" (errors raised with level 0 have no line).
func runtimeError(name string, err error) error {
	msg := luaMessage(err)
	if !strings.HasPrefix(msg, name+":") {
		msg = name + ": " + msg
	}
	return errors.New(msg)
}

// syntaxError formats a parse or compile error as "name:LINE: message".
func syntaxError(name string, src []byte, err error) error {
	cause := err
	if ae, ok := err.(*lua.ApiError); ok && ae.Cause != nil {
		cause = ae.Cause
	}
	var pe *parse.Error
	var ce *lua.CompileError
	switch {
	case errors.As(cause, &pe) && pe.Pos.Line == parse.EOF:
		lines := bytes.Count(src, []byte("\n"))
		if len(src) > 0 && src[len(src)-1] != '\n' {
			lines++
		}
		return fmt.Errorf("%s:%d: %s at the end of the file", name, max(lines, 1), pe.Message)
	case errors.As(cause, &pe):
		return fmt.Errorf("%s:%d: %s near '%s'", name, pe.Pos.Line, pe.Message, escape.Line(pe.Token))
	case errors.As(cause, &ce):
		return fmt.Errorf("%s:%d: %s", name, ce.Line, ce.Message)
	}
	return fmt.Errorf("%s: %s", name, luaMessage(err))
}

// raised is the last value that is not a string raised by error, and
// where ("script.lua:12:").
type raised struct {
	value lua.LValue
	where string
}

// errorObject gives an error whose value is not a string (error({...}))
// the script line that raised it and a readable rendering of the value;
// Lua itself reports only "table: 0x…".
func (in *interp) errorObject(err error) error {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return err
	}
	if _, ok := ae.Object.(lua.LString); ok {
		return err
	}
	msg := "error value " + describeValue(ae.Object, 2)
	if in.raised.value == ae.Object {
		msg = in.raised.where + " " + msg
	}
	return errors.New(msg)
}

// describeValue renders a Lua value for a message: tables as { k = v, … }
// (at most 8 entries, depth levels deep), strings quoted.
func describeValue(v lua.LValue, depth int) string {
	switch x := v.(type) {
	case lua.LString:
		return escape.Quote(string(x), 200)
	case *lua.LTable:
		if depth == 0 {
			return "{…}"
		}
		var parts []string
		x.ForEach(func(k, val lua.LValue) {
			key := k.String()
			if _, ok := k.(lua.LString); !ok {
				key = "[" + describeValue(k, 0) + "]"
			}
			parts = append(parts, key+" = "+describeValue(val, depth-1))
		})
		slices.Sort(parts) // Lua's order of keys is not fixed
		if len(parts) > 8 {
			parts = append(parts[:8], "…")
		}
		if len(parts) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return v.String()
}
