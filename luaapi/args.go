package luaapi

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// argName is what a --set key may be: a Lua identifier.
var argName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// decimal is the grammar of a --set value read as a number: an optional
// sign, decimal digits with an optional fraction, an optional exponent;
// no underscores, hexadecimal, spaces, Inf or NaN.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// ParseSet parses a command-line "key=value" into a script argument: a
// decimal number (see ParseNumber) is a number, true and false are
// booleans, anything else is a string (quotes around it are removed). A
// value that Go or Lua would read as a number in another syntax (1_000,
// 0x10, Inf, " 12") is refused: write it as a decimal, or quote it to
// pass the text.
func ParseSet(s string) (key string, value any, err error) {
	key, text, ok := strings.Cut(s, "=")
	if !ok || !argName.MatchString(key) {
		return "", nil, fmt.Errorf("--set %q: want key=value with key a Lua name (letters, digits, _)", s)
	}
	if x, ok, err := ParseNumber(text); err != nil {
		return "", nil, fmt.Errorf("--set %s: %w", s, err)
	} else if ok {
		return key, x, nil
	}
	switch text {
	case "true":
		return key, true, nil
	case "false":
		return key, false, nil
	}
	return key, unquote(text), nil
}

// ParseNumber reads text as a --set number: ok is true for a finite
// decimal (as in 10, -2.5, .5 or 1e-3). Text that is not a decimal but
// that Go or Lua would read as a number (1_000, 0x10, Inf, NaN, " 12"),
// and decimals beyond float64, are errors; other text is not a number
// (ok false, no error).
func ParseNumber(text string) (x float64, ok bool, err error) {
	if decimal.MatchString(text) {
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(x, 0) {
			return 0, false, fmt.Errorf("%q is beyond the range of numbers (±1.8e308)", text)
		}
		return x, true, nil
	}
	t := strings.Trim(text, " \t\n") // what Lua's string-to-number coercion reads
	_, intErr := strconv.ParseInt(t, 0, 64)
	_, floatErr := strconv.ParseFloat(t, 64)
	if intErr == nil || floatErr == nil {
		return 0, false, fmt.Errorf("%q is not a plain decimal number (write e.g. 1000, 2.5 or 1e-3); to pass the text, quote it: '\"%s\"'", text, text)
	}
	return 0, false, nil
}

// unquote removes one pair of matching quotes around text.
func unquote(text string) string {
	if len(text) >= 2 && (text[0] == '"' || text[0] == '\'') && text[len(text)-1] == text[0] {
		return text[1 : len(text)-1]
	}
	return text
}

// scriptArgs follows the --set arguments through the script: which keys
// it reads from fedlab.args, and the parameters it declares with
// fedlab.params. A key set on the command line that the script never
// reads is an error before the first run executes.
type scriptArgs struct {
	values   *lua.LTable     // the --set values by key
	proxy    *lua.LTable     // fedlab.args: an empty table whose reads are recorded
	read     map[string]bool // keys the script read (set or not)
	declared string          // where fedlab.params was called, or ""
	checked  bool            // the set keys were checked against the reads
	refused  string          // the message of a --set key or value refused, or ""
}

// ArgError is a --set key or value the script refuses (a key it neither
// reads nor declares, a value of the wrong type): a mistake in the
// command line, not in the script; the CLI exits with status 2.
type ArgError struct{ msg string }

func (e *ArgError) Error() string { return e.msg }

// refuse records err, the refusal of a --set key or value, and returns it
// as an *ArgError: raised through the script, it loses its type, and
// argMistake recognises it by its message.
func (in *interp) refuse(err error) error {
	in.args.refused = err.Error()
	return &ArgError{err.Error()}
}

// argMistake is err, the error that ended the script, as an *ArgError
// when it is the refusal of a --set key or value.
func (in *interp) argMistake(err error) error {
	if err != nil && in.args != nil && in.args.refused != "" && strings.HasSuffix(err.Error(), in.args.refused) {
		return &ArgError{err.Error()}
	}
	return err
}

// argsTable builds fedlab.args: the --set values by key, read through a
// metatable that records each key read. Keys not set read as nil, so a
// script gives defaults with `fedlab.args.rounds or 100`; pairs works on it.
func (in *interp) argsTable() *lua.LTable {
	a := &scriptArgs{values: in.L.NewTable(), proxy: in.L.NewTable(), read: map[string]bool{}}
	in.args = a
	for k, v := range in.opts.Args {
		a.values.RawSetString(k, luaValue(v))
	}
	mt := in.L.NewTable()
	mt.RawSetString("__index", in.L.NewFunction(func(L *lua.LState) int {
		key := L.Get(2)
		if s, ok := key.(lua.LString); ok {
			a.read[string(s)] = true
		}
		L.Push(a.values.RawGet(key))
		return 1
	}))
	mt.RawSetString("__newindex", in.L.NewFunction(func(L *lua.LState) int {
		a.values.RawSet(L.Get(2), L.Get(3))
		return 0
	}))
	in.L.SetMetatable(a.proxy, mt)
	return a.proxy
}

// luaValue is a --set value in Lua.
func luaValue(v any) lua.LValue {
	switch x := v.(type) {
	case float64:
		return lua.LNumber(x)
	case bool:
		return lua.LBool(x)
	}
	return lua.LString(fmt.Sprint(v))
}

// installPairs makes pairs(fedlab.args) iterate the --set values (which
// counts as reading them all); other tables iterate as before.
func (in *interp) installPairs() {
	pairs, ok := in.L.GetGlobal("pairs").(*lua.LFunction)
	if !ok {
		return
	}
	in.L.SetGlobal("pairs", in.L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok && t == in.args.proxy {
			for k := range in.opts.Args {
				in.args.read[k] = true
			}
			L.Push(L.GetGlobal("next"))
			L.Push(in.args.values)
			L.Push(lua.LNil)
			return 3
		}
		L.Insert(pairs, 1)
		L.Call(L.GetTop()-1, lua.MultRet)
		return L.GetTop()
	}))
}

// setText is the text of the --set value of key as typed.
func (in *interp) setText(key string) string {
	if t, ok := in.opts.ArgText[key]; ok {
		return unquote(t)
	}
	if x, ok := in.opts.Args[key].(float64); ok {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(in.opts.Args[key])
}

// checkArgsRead refuses --set keys the script has not read (nor declared
// with fedlab.params), naming the keys it reads: called before the first
// run executes (when is "before its first run") and at the end of the
// script (when is "").
func (in *interp) checkArgsRead(when string) error {
	a := in.args
	if a == nil || a.checked || len(in.opts.Args) == 0 {
		return nil
	}
	a.checked = true
	readKeys := slices.Sorted(maps.Keys(a.read))
	for _, k := range slices.Sorted(maps.Keys(in.opts.Args)) {
		if a.read[k] {
			continue
		}
		reads := "it reads no fedlab.args key"
		if len(readKeys) > 0 {
			reads = "it reads " + strings.Join(readKeys, ", ")
		}
		if when != "" {
			reads += " " + when
		}
		return in.refuse(fmt.Errorf("--set %s=%s: the script does not read fedlab.args.%s%s (%s; a script can declare its parameters with fedlab.params)",
			k, in.setText(k), k, registry.DidYouMean(k, readKeys), reads))
	}
	return nil
}

// fnParams is fedlab.params{ key = default, ... }: declares the script's
// parameters with their defaults, whose types (number, string, boolean)
// the --set values must have; returns the table of values (defaults
// replaced by the --set values). A --set key not declared, or of another
// type, is an error at once.
func (in *interp) fnParams(L *lua.LState) (int, error) {
	const fn = "fedlab.params"
	t, ok := L.Get(1).(*lua.LTable)
	if !ok || L.GetTop() != 1 {
		return 0, fmt.Errorf("%s: expected one table of parameters with their defaults, e.g. fedlab.params{ rounds = 100, path = \"data.svm\" }", fn)
	}
	if in.args.declared != "" {
		return 0, fmt.Errorf("%s: the parameters were declared at %s already; declare them all in one call", fn, in.args.declared)
	}
	defaults := map[string]lua.LValue{}
	var err error
	t.ForEach(func(k, v lua.LValue) {
		key, ok := k.(lua.LString)
		switch {
		case err != nil:
		case !ok || !argName.MatchString(string(key)):
			err = fmt.Errorf("%s: key %s: want a Lua name (letters, digits, _)", fn, k.String())
		case v.Type() != lua.LTNumber && v.Type() != lua.LTString && v.Type() != lua.LTBool:
			err = fmt.Errorf("%s: parameter %q: the default must be a number, a string or a boolean (it gives the type), got %s", fn, string(key), typeText(v))
		default:
			defaults[string(key)] = v
		}
	})
	if err != nil {
		return 0, err
	}
	names := slices.Sorted(maps.Keys(defaults))
	out := L.NewTable()
	for _, k := range names {
		out.RawSetString(k, defaults[k])
		in.args.read[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(in.opts.Args)) {
		def, ok := defaults[k]
		if !ok {
			return 0, in.refuse(fmt.Errorf("%s: --set %s=%s: the script has no parameter %q%s; its parameters: %s", fn, k, in.setText(k), k, registry.DidYouMean(k, names), strings.Join(names, ", ")))
		}
		v, err := in.typedArg(k, def)
		if err != nil {
			return 0, in.refuse(fmt.Errorf("%s: %w", fn, err))
		}
		out.RawSetString(k, v)
	}
	in.args.declared = in.where()
	L.Push(out)
	return 1, nil
}

// typedArg is the --set value of key with the type of its default.
func (in *interp) typedArg(key string, def lua.LValue) (lua.LValue, error) {
	text := in.setText(key)
	switch def.Type() {
	case lua.LTNumber:
		if x, ok := in.opts.Args[key].(float64); ok {
			return lua.LNumber(x), nil
		}
		return nil, fmt.Errorf("--set %s=%s: parameter %q is a number (default %s), got %q", key, text, key, def.String(), text)
	case lua.LTBool:
		if b, ok := in.opts.Args[key].(bool); ok {
			return lua.LBool(b), nil
		}
		return nil, fmt.Errorf("--set %s=%s: parameter %q is a boolean (default %s): want true or false, got %q", key, text, key, def.String(), text)
	}
	return lua.LString(text), nil
}
