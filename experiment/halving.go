package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/fedlab/fedlab/core"
)

// Halving is successive halving (Jamieson & Talwalkar 2016; the rungs of
// Li et al.'s Hyperband and ASHA) over a sweep's configurations: every
// configuration runs the first rung's rounds; at each rung the best
// ⌈n/Eta⌉ by the sweep's own selection rules continue to the next rung's
// budget, up to the full rounds; a configuration that diverges, fails or
// has no score stops at once. The budgets are geometric and end exactly
// at the rounds (see Rungs). A survivor continues from its state at the
// end of its rung where its algorithm allows (plan.Builder.Halve).
type Halving struct {
	Eta   float64 // ≥ 1; 1: no elimination (one rung: the full grid); 0: DefaultEta (see For)
	First int     // least rounds of the first rung, ≥ 1; 0: the default (see For)
}

// DefaultEta is the eta of a halving that gives none.
const DefaultEta = 3

// For returns h with its defaults for runs of settings s: Eta 0 becomes
// DefaultEta, First 0 becomes max(s.EvalEvery, ⌊s.Rounds/Eta²⌋, 1), at
// most s.Rounds (so a halving with the default eta has three rungs when
// evaluations allow: rounds/9, rounds/3, rounds). fedlab.sweep's halving
// key and Go plans (plan.Builder.Halve) both take their defaults here.
func (h Halving) For(s core.Settings) Halving {
	if h.Eta == 0 {
		h.Eta = DefaultEta
	}
	if h.First == 0 {
		h.First = min(max(s.EvalEvery, int(float64(s.Rounds)/(h.Eta*h.Eta)), 1), max(s.Rounds, 1))
	}
	return h
}

// Rung places a call of a halving sweep: rung Index of Of (1-based), whose
// runs have Rounds rounds. A run directory's manifest records it with the
// call (rundir.Call).
type Rung struct {
	Index  int `json:"index"`
	Of     int `json:"of"`
	Rounds int `json:"rounds"`
}

// String renders the rung as records.csv shows it: "2/4" (empty for no
// rung).
func (r *Rung) String() string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", r.Index, r.Of)
}

// Name is the name of the rung's call in a sweep named name (which may be
// empty): "rung 2 of 3 (60 rounds)", after the sweep's name if it has one.
func (r Rung) Name(name string) string {
	n := fmt.Sprintf("rung %d of %d (%d rounds)", r.Index, r.Of, r.Rounds)
	if name != "" {
		n = name + ", " + n
	}
	return n
}

// MaxRungs bounds the rungs of a halving: an eta close to 1 would plan
// (and run) one rung per round or more (eta = 1 + 1e-15 planned 10¹⁵).
const MaxRungs = 64

// Rungs returns the round budget of each rung, ascending: rounds/Etaᵏ
// rounded to the nearest integer, for k = K, …, 1, 0, where K is the
// largest k with rounds/Etaᵏ ≥ First; so the last rung is rounds itself,
// each rung Eta times the one before (up to rounding), and no rung is a
// near-duplicate of the last one (200 rounds, eta 3, first 22: 22, 67,
// 200). Budgets that round to the same integer (an eta close to 1) are one
// rung. More than MaxRungs rungs are refused, naming eta, the rungs it
// would make and the eta that keeps them under the bound.
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
	K := h.divisions(rounds)
	var count string
	switch {
	case K < maxCounted:
		out := h.budgets(rounds, int(K))
		if len(out) <= MaxRungs {
			return out, nil
		}
		count = fmt.Sprint(len(out))
	case float64(rounds)*(1-1/h.Eta) < 1: // budgets less than a round apart: every integer from the smallest to rounds
		least := max(int(math.Round(float64(rounds)/math.Pow(h.Eta, K))), 1)
		if rounds-least+1 <= MaxRungs {
			out := make([]int, 0, rounds-least+1)
			for b := least; b <= rounds; b++ {
				out = append(out, b)
			}
			return out, nil
		}
		count = fmt.Sprint(rounds - least + 1)
	default:
		count = fmt.Sprintf("more than %d", maxCounted)
	}
	enough := math.Ceil(math.Pow(float64(rounds)/float64(h.First), 1.0/(MaxRungs-1))*1e4) / 1e4
	return nil, fmt.Errorf("halving: eta = %g would make %s rungs (the first of at least %d rounds, each next one eta times longer, up to %d rounds), more than %d: give a larger eta (%g or more makes at most %d)",
		h.Eta, count, h.First, rounds, MaxRungs, enough, MaxRungs)
}

// budgets returns the distinct budgets rounds/Etaᵏ rounded, for k = K
// down to 0 (the last one rounds itself), ascending.
func (h Halving) budgets(rounds, K int) []int {
	var out []int
	for k := K; k >= 0; k-- {
		b := max(int(math.Round(float64(rounds)/math.Pow(h.Eta, float64(k)))), 1)
		if k == 0 {
			b = rounds
		}
		if len(out) == 0 || b > out[len(out)-1] {
			out = append(out, b)
		}
	}
	return out
}

// maxCounted bounds the budgets Rungs computes one by one to count them
// for its message (a few tens of milliseconds).
const maxCounted = 1 << 22

// divisions returns K, the largest k with rounds/Etaᵏ ≥ First (a margin of
// 1e-9 keeps an exact power, 90/3² = 10, from falling short by rounding).
func (h Halving) divisions(rounds int) float64 {
	k := math.Floor(math.Log(float64(rounds)/float64(h.First))/math.Log(h.Eta) + 1e-9)
	if k > 0 && k < maxCounted && float64(rounds)/math.Pow(h.Eta, k) < float64(h.First)*(1-1e-12) {
		k--
	}
	return k
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

// SelectRungs selects among the configurations of a halving sweep from
// the runs of its rungs (rungs[k]: the runs of rung k+1, whose budget is
// rounds[k]; fewer than len(rounds) while the sweep is unfinished): one
// selection per algorithm holding every configuration, in the order of
// the first rung, scored at the last rung it ran (Candidate.Rung, Rungs,
// Rounds), its Best the best of the sweep's last rung (none before it
// ran). Its Edges are those of the whole grid.
func SelectRungs(rungs [][]Run, rounds []int, rules []Rule) []Selection {
	var out []Selection
	at := map[string]int{}             // label → its selection in out
	pos := map[string]map[string]int{} // label → configuration → its candidate
	for k, runs := range rungs {
		for _, sel := range Select(runs, rules) {
			i, ok := at[sel.Label]
			if !ok {
				i = len(out)
				at[sel.Label], pos[sel.Label] = i, map[string]int{}
				out = append(out, Selection{Label: sel.Label, Best: -1})
			}
			s := &out[i]
			for _, c := range sel.Candidates {
				c.Rung, c.Rungs, c.Rounds = k+1, len(rounds), rounds[k]
				j, ok := pos[sel.Label][c.Config.String()]
				if !ok {
					j = len(s.Candidates)
					pos[sel.Label][c.Config.String()] = j
					s.Candidates = append(s.Candidates, Candidate{})
				}
				s.Candidates[j] = c
			}
		}
	}
	for i := range out {
		s := &out[i]
		for j, c := range s.Candidates {
			if c.Rung == len(rounds) && c.Status == "" && (s.Best < 0 || beats(rules, c.Scores, s.Candidates[s.Best].Scores)) {
				s.Best = j
			}
		}
	}
	return out
}
