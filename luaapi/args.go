package luaapi

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// argName is what a --set key may be: a Lua identifier.
var argName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseSet parses a command-line "key=value" into a script argument: a
// finite number stays a number, true and false are booleans, anything
// else is a string (quotes around it are removed).
func ParseSet(s string) (key string, value any, err error) {
	key, text, ok := strings.Cut(s, "=")
	if !ok || !argName.MatchString(key) {
		return "", nil, fmt.Errorf("--set %q: want key=value with key a Lua name (letters, digits, _)", s)
	}
	if x, err := strconv.ParseFloat(text, 64); err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) {
		return key, x, nil
	}
	switch text {
	case "true":
		return key, true, nil
	case "false":
		return key, false, nil
	}
	if len(text) >= 2 && (text[0] == '"' || text[0] == '\'') && text[len(text)-1] == text[0] {
		text = text[1 : len(text)-1]
	}
	return key, text, nil
}

// argsTable is fedlab.args: the --set values by key. Keys not set read as
// nil, so a script gives defaults with `fedlab.args.rounds or 100`.
func (in *interp) argsTable() *lua.LTable {
	t := in.L.NewTable()
	for k, v := range in.opts.Args {
		switch x := v.(type) {
		case float64:
			t.RawSetString(k, lua.LNumber(x))
		case bool:
			t.RawSetString(k, lua.LBool(x))
		default:
			t.RawSetString(k, lua.LString(fmt.Sprint(x)))
		}
	}
	return t
}
