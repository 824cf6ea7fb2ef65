package rundir

import (
	"fmt"
	"strings"

	"github.com/fedlab/fedlab/experiment"
)

// HalvingSweeps groups the calls of m that are the rungs of one
// successive-halving sweep: consecutive calls of the same function at the
// same place whose rungs are 1, 2, … of the same count (a sweep still
// running has its first rungs only). Each group lists its calls' indices;
// calls outside any sweep are in none.
func HalvingSweeps(m *Manifest) [][]int {
	var out [][]int
	for i := 0; i < len(m.Calls); i++ {
		c := m.Calls[i]
		if c.Rung == nil || c.Rung.Index != 1 {
			continue
		}
		group := []int{i}
		for j := i + 1; j < len(m.Calls) && len(group) < c.Rung.Of; j++ {
			n := m.Calls[j]
			if n.Rung == nil || n.Rung.Index != len(group)+1 || n.Rung.Of != c.Rung.Of || n.Where != c.Where || n.Function != c.Function {
				break
			}
			group = append(group, j)
		}
		out = append(out, group)
		i = group[len(group)-1]
	}
	return out
}

// SelectHalving selects among the configurations of the halving sweep
// whose rung calls are group (HalvingSweeps), with runs[i] the runs of
// call i: experiment.SelectRungs, every configuration scored at the rung
// it stopped at and the best among the last rung's.
func SelectHalving(m *Manifest, runs [][]experiment.Run, group []int) []experiment.Selection {
	first := m.Calls[group[0]]
	rounds := make([]int, first.Rung.Of) // the budgets of rungs not run yet are unknown: 0
	var rungs [][]experiment.Run
	for k, i := range group {
		rounds[k] = m.Calls[i].Rung.Rounds
		rungs = append(rungs, runs[i])
	}
	return experiment.SelectRungs(rungs, rounds, first.Select)
}

// HalvingTitle is the title of the halving sweep whose first rung is
// call c: the script's name for it, without the rung luaapi appends
// ("tuning" for "tuning, rung 1 of 3 (10 rounds)"), or its place and
// function ("sweep.lua:3 fedlab.sweep").
func HalvingTitle(c Call) string {
	name := c.Name
	if i := strings.LastIndex(name, "rung "); i >= 0 && strings.HasSuffix(name, " rounds)") {
		name = strings.TrimSuffix(name[:i], ", ")
	}
	if name == "" {
		return c.Where + " " + c.Function
	}
	return name
}

// HalvingSweepTitle is the title of the halving sweep whose rung calls are
// group in tables and the report: "Calls 1–3: sweep.lua:3 fedlab.sweep,
// successive halving: rungs of 10, 30 and 90 rounds", with "(2 of 3 rungs
// run)" while it is unfinished.
func HalvingSweepTitle(m *Manifest, group []int) string {
	first := m.Calls[group[0]]
	var budgets []string
	for _, i := range group {
		budgets = append(budgets, fmt.Sprint(m.Calls[i].Rung.Rounds))
	}
	calls := fmt.Sprintf("Call %d", group[0]+1)
	if len(group) > 1 {
		calls = fmt.Sprintf("Calls %d–%d", group[0]+1, group[len(group)-1]+1)
	}
	list := budgets[0]
	if n := len(budgets); n > 1 {
		list = strings.Join(budgets[:n-1], ", ") + " and " + budgets[n-1]
	}
	title := fmt.Sprintf("%s: %s, successive halving: rungs of %s rounds", calls, HalvingTitle(first), list)
	if len(group) < first.Rung.Of {
		title += fmt.Sprintf(" (%d of %d rungs run)", len(group), first.Rung.Of)
	}
	return title
}
