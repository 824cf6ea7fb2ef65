package luaapi

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// list returns the elements of t if it is a proper sequence (keys 1..n and
// nothing else); what names the value in the error.
func list(t *lua.LTable, what string) ([]lua.LValue, error) {
	n := t.Len()
	out := make([]lua.LValue, 0, n)
	var bad lua.LValue
	count := 0
	t.ForEach(func(k, v lua.LValue) {
		count++
		if i, ok := k.(lua.LNumber); !ok || float64(i) != math.Trunc(float64(i)) || int(i) < 1 || int(i) > n {
			if bad == nil {
				bad = k
			}
		}
	})
	if bad != nil || count != n {
		return nil, fmt.Errorf("%s: expected a list, got a table with the key %s", what, keyText(bad))
	}
	for i := 1; i <= n; i++ {
		out = append(out, t.RawGetInt(i))
	}
	return out, nil
}

// numberList converts a Lua list of numbers; what names it in errors.
func numberList(t *lua.LTable, what string) ([]float64, error) {
	elems, err := list(t, what)
	if err != nil {
		return nil, err
	}
	nums := make([]float64, len(elems))
	for i, e := range elems {
		n, ok := e.(lua.LNumber)
		if !ok {
			return nil, fmt.Errorf("%s: element %d: expected a number, got %s", what, i+1, typeText(e))
		}
		nums[i] = float64(n)
	}
	return nums, nil
}

// integer converts a Lua number that must be integral and at least lo.
func integer(v lua.LValue, lo int, what string) (int, error) {
	x, ok := v.(lua.LNumber)
	if !ok {
		return 0, fmt.Errorf("%s: expected an integer, got %s", what, typeText(v))
	}
	f := float64(x)
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s: expected an integer, got %g", what, f)
	}
	if math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%s: expected an integer, got %g, which is too large (integers lie within ±2^53)", what, f)
	}
	if int(f) < lo {
		return 0, fmt.Errorf("%s: expected an integer ≥ %d, got %g", what, lo, f)
	}
	return int(f), nil
}

// typeText describes a Lua value for error messages.
func typeText(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return fmt.Sprintf("the string %q", string(x))
	case lua.LNumber:
		return fmt.Sprintf("the number %v", x)
	case lua.LBool:
		return fmt.Sprintf("the boolean %v", x)
	case *lua.LNilType:
		return "nil"
	case *lua.LUserData:
		switch u := x.Value.(type) {
		case *component:
			return u.spec.Title()
		case *problem:
			return "a problem"
		}
	}
	return "a " + v.Type().String()
}

// keyText renders a table key for error messages.
func keyText(k lua.LValue) string {
	if k == nil {
		return "(hole)"
	}
	if s, ok := k.(lua.LString); ok {
		return fmt.Sprintf("%q", string(s))
	}
	return k.String()
}

// article prefixes a noun with "a" or "an".
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
