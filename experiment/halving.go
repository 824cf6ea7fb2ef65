package experiment

import (
	"fmt"
	"math"
	"slices"
)

// Halving is successive halving (Jamieson & Talwalkar 2016; the rungs of
// Li et al.'s Hyperband and ASHA) over a sweep's configurations: every
// configuration runs First rounds; at each rung the best ⌈n/Eta⌉ by the
// sweep's own selection rules continue to Eta times the rounds, up to the
// full rounds; a configuration that diverges, fails or has no score stops
// at once. Each rung recomputes its runs from round 0 (runs are
// deterministic, so a configuration's first b rounds are the same in every
// rung, and a rung is a set of ordinary runs: stored, resumed, sharded and
// merged like any other); what a rung re-runs is the fraction 1/Eta of
// the work of the rung before it.
type Halving struct {
	Eta   float64 // ≥ 1; 1: no elimination (one rung: the full grid)
	First int     // rounds of the first rung, ≥ 1
}

// MaxRungs bounds the rungs of a halving: an eta close to 1 would plan
// (and run) one rung per round or more (eta = 1 + 1e-15 planned 10¹⁵).
const MaxRungs = 64

// Rungs returns the round budget of each rung: First, First·Eta, … capped
// at rounds, the last one rounds itself; more than MaxRungs rungs are
// refused, naming eta, the rungs it would make and the eta that keeps
// them under the bound.
func (h Halving) Rungs(rounds int) ([]int, error) {
	switch {
	case !(h.Eta >= 1) || h.Eta > 1e6:
		return nil, fmt.Errorf("halving: eta = %g: want a number from 1 (no elimination) to 1e6", h.Eta)
	case rounds < 1:
		return nil, fmt.Errorf("halving: rounds = %d: no rounds to halve", rounds)
	case h.First < 1 || h.First > rounds:
		return nil, fmt.Errorf("halving: first = %d: want the rounds of the first rung, 1 to rounds = %d", h.First, rounds)
	}
	if h.Eta == 1 || h.First == rounds {
		return []int{rounds}, nil
	}
	out := h.budgets(rounds, MaxRungs)
	if len(out) <= MaxRungs {
		return out, nil
	}
	count := fmt.Sprint(len(h.budgets(rounds, maxCounted)))
	if count == fmt.Sprint(maxCounted+2) {
		count = fmt.Sprintf("more than %d", maxCounted)
	}
	enough := math.Ceil(math.Pow(float64(rounds)/float64(h.First), 1.0/(MaxRungs-1))*1e4) / 1e4
	return nil, fmt.Errorf("halving: eta = %g would make %s rungs (the first of %d rounds, each next one eta times longer, up to %d rounds), more than %d: give a larger eta (%g or more makes at most %d)",
		h.Eta, count, h.First, rounds, MaxRungs, enough, MaxRungs)
}

// maxCounted bounds the rungs Rungs counts for its message.
const maxCounted = 1 << 20

// budgets returns the rungs' budgets (see Rungs), stopping after more
// than limit. When reaching rounds takes at most 2¹⁶ multiplications by
// eta, they are made one by one (the budgets every halving had); an eta
// closer to 1, which leaves a budget unchanged for many multiplications,
// jumps to the next budget that differs (the power of eta that passes it).
func (h Halving) budgets(rounds, limit int) []int {
	first, eta := float64(h.First), h.Eta
	var out []int
	if math.Log(float64(rounds)/first)/math.Log(eta) <= 1<<16 {
		for b := first; int(b) < rounds && len(out) <= limit; b *= eta {
			if len(out) == 0 || int(b) > out[len(out)-1] {
				out = append(out, int(b))
			}
		}
	} else {
		for v := h.First; v < rounds && len(out) <= limit; {
			out = append(out, v)
			k := math.Ceil(math.Log(float64(v+1)/first) / math.Log(eta))
			v = max(int(first*math.Pow(eta, k)), v+1)
		}
	}
	return append(out, rounds)
}

// Keep is how many of n configurations continue past a rung: ⌈n/Eta⌉.
func (h Halving) Keep(n int) int {
	if h.Eta <= 1 {
		return n
	}
	k := int(float64(n) / h.Eta)
	if float64(k)*h.Eta < float64(n) {
		k++
	}
	return max(k, 1)
}

// Ranked returns the indices of the candidates of s that have a score,
// best first under rules (ties to the one listed first), as Select orders
// them: its Best is Ranked's first.
func (s Selection) Ranked(rules []Rule) []int {
	var idx []int
	for i, c := range s.Candidates {
		if c.Status == "" {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case beats(rules, s.Candidates[a].Scores, s.Candidates[b].Scores):
			return -1
		case beats(rules, s.Candidates[b].Scores, s.Candidates[a].Scores):
			return 1
		}
		return 0
	})
	return idx
}
