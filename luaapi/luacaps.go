package luaapi

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fedlab/fedlab/internal/budget"
	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's own limits, which gopher-lua does not keep.
const (
	// maxCCalls bounds the nesting of pcall and xpcall calls (Lua's
	// LUAI_MAXCCALLS): fedlab's pcall runs its function on a thread of
	// its own, with its own call stack, so recursion through pcall would
	// otherwise escape the call-depth limit.
	maxCCalls = 200
	// maxUnpack bounds the values unpack returns (Lua's LUAI_MAXCSTACK).
	maxUnpack = 8000
	// maxChunk bounds the source of a chunk loadstring or load compiles.
	maxChunk = 16 << 20
)

// registryMax is the size a Lua thread's value stack may grow to: gopher-
// lua's default and room for unpack's maxUnpack values.
const registryMax = 256*20 + 2*maxUnpack

// cCallError is the error of a pcall or xpcall nested more than maxCCalls
// deep (Lua 5.1 says "C stack overflow").
func cCallError() string {
	return fmt.Sprintf("C stack overflow: more than %d pcall or xpcall calls nested (Lua's limit; a recursion through pcall?)", maxCCalls)
}

// nested returns fn counted against the nesting limit that depth keeps
// (shared by pcall and xpcall).
func nested(depth *int, fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if *depth >= maxCCalls {
			L.RaiseError("%s", cCallError())
		}
		*depth++
		defer func() { *depth-- }()
		return fn(L)
	}
}

// unpack is Lua's unpack(t [, i [, j]]) refusing more than maxUnpack
// results as Lua 5.1 refuses them ("too many results to unpack"), where
// gopher-lua's runs out of stack ("registry overflow").
func unpack(orig *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		t := L.CheckTable(1)
		i, j := L.OptInt(2, 1), L.OptInt(3, t.Len())
		if i <= j && (j-i >= maxUnpack || j-i < 0) {
			L.RaiseError("too many results to unpack (%d; at most %d)", uint64(j)-uint64(i)+1, maxUnpack)
		}
		base := L.GetTop()
		L.Push(orig)
		L.Push(t)
		L.Push(lua.LNumber(i))
		L.Push(lua.LNumber(j))
		L.Call(3, lua.MultRet)
		return L.GetTop() - base
	}
}

// chunkTooLong is loadstring's and load's message for a chunk of size
// bytes, longer than limit (maxChunk).
func chunkTooLong(size, limit int) string {
	return fmt.Sprintf("chunk too long: %s of source, more than the %s a chunk loaded by a script may have", budget.Format(uint64(size)), budget.Format(uint64(limit)))
}

// compileStopped is the message of a chunk whose compilation the script's
// context ended (a signal, --timeout, the memory ceiling).
func compileStopped(L *lua.LState) string {
	return fmt.Sprintf("compilation of the chunk stopped: %v", L.Context().Err())
}

// compileLoaded compiles src (a chunk of loadstring or load) under the
// script's context: the parser reads src through a reader that ends when
// the context ends (a signal, --timeout, the memory ceiling), which stops
// the parse within a few kilobytes, and the chunk is then refused.
func compileLoaded(L *lua.LState, src, name string) (*lua.LFunction, error) {
	ctx := L.Context()
	if ctx == nil {
		return load(L, strings.NewReader(src), name)
	}
	fn, err := load(L, &ctxReader{ctx, strings.NewReader(src)}, name)
	if ctx.Err() != nil {
		L.RaiseError("%s", compileStopped(L))
	}
	return fn, err
}

// ctxReader reads r until ctx ends, then gives io.EOF.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

// Read reads from r, or gives io.EOF once ctx has ended.
func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, io.EOF
	}
	return c.r.Read(p)
}
