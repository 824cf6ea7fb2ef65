package luaapi

import (
	"bytes"
	"errors"
	"fmt"
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
