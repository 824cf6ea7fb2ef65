package experiment

import (
	"fmt"
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

// Rungs returns the round budget of each rung: First, First·Eta, … capped
// at rounds, the last one rounds itself.
func (h Halving) Rungs(rounds int) ([]int, error) {
	switch {
	case !(h.Eta >= 1) || h.Eta > 1e6:
		return nil, fmt.Errorf("halving: eta = %g: want a number ≥ 1 (1: no elimination)", h.Eta)
	case h.First < 1 || h.First > rounds:
		return nil, fmt.Errorf("halving: first = %d: want the rounds of the first rung, 1 to rounds = %d", h.First, rounds)
	}
	if h.Eta == 1 || h.First == rounds {
		return []int{rounds}, nil
	}
	var out []int
	for b := float64(h.First); int(b) < rounds; b *= h.Eta {
		if len(out) == 0 || int(b) > out[len(out)-1] {
			out = append(out, int(b))
		}
	}
	return append(out, rounds), nil
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
