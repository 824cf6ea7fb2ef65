package luaapi

import (
	"fmt"
	"strings"

	"github.com/fedlab/fedlab/internal/budget"
	lua "github.com/yuin/gopher-lua"
)

// tableFits refuses to tabulate a Lua schedule whose table would not fit
// in the budget.
func (in *interp) tableFits(s *luaSchedule, rounds int) error {
	return in.guard.budget.Check(fmt.Sprintf("%s: parameter %q: the function's table of values for %d rounds", s.title, s.param, rounds),
		budget.Product(rounds, 8), "run fewer rounds")
}

// seedList reads the key seeds: { 1 } when absent; an empty list or a seed
// given twice (the runs would be the same, and their spread zero) is an
// error.
func seedList(f *fields) []uint64 {
	if f.get("seeds") == lua.LNil {
		return []uint64{1}
	}
	var seeds []uint64
	seen := map[int]int{}
	list := f.integers("seeds", 0)
	if len(list) == 0 && f.error() == nil {
		f.fail(fmt.Errorf("%s: the list is empty; give at least one seed, or leave seeds out for { 1 }", f.what("seeds")))
	}
	for i, s := range list {
		if j, ok := seen[s]; ok {
			f.fail(fmt.Errorf("%s: seed %d appears twice (elements %d and %d): its runs would be the same run", f.what("seeds"), s, j+1, i+1))
			continue
		}
		seen[s] = i
		seeds = append(seeds, uint64(s))
	}
	return seeds
}

// article prefixes a noun with "a" or "an".
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
