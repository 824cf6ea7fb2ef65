package experiment

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fedlab/fedlab/core"
)

// TestHalvingRungsAreBounded: a halving of more than MaxRungs rungs is
// refused at once, naming eta, the rungs it would make and an eta that
// makes at most 64 (eta = 1 + 1e-15 planned about 10¹⁵ rungs, past any
// --timeout; eta = 1.00001 planned 10⁵ without a word); an eta close to 1
// with few rungs gives one rung per round.
func TestHalvingRungsAreBounded(t *testing.T) {
	for _, c := range []struct {
		h      Halving
		rounds int
		want   string
	}{
		{Halving{Eta: 1 + 1e-15, First: 1}, 100000, "halving: eta = 1.000000000000001 would make 100000 rungs (the first of at least 1 rounds, each next one eta times longer, up to 100000 rounds), more than 64: give a larger eta (1.2006 or more makes at most 64)"},
		{Halving{Eta: 1.00001, First: 1}, 100000, "halving: eta = 1.00001 would make "},
		{Halving{Eta: 1.01, First: 1}, 1000, "halving: eta = 1.01 would make "},
		{Halving{Eta: 1.5, First: 1}, 1 << 30, "halving: eta = 1.5 would make 52 rungs"},
		{Halving{Eta: 3, First: 1}, 0, "halving: rounds = 0: no rounds to halve"},
	} {
		start := time.Now()
		_, err := c.h.Rungs(c.rounds)
		if c.h.Eta == 1.5 {
			if err != nil {
				t.Errorf("%+v: %v", c.h, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v over %d rounds: %v, want %q", c.h, c.rounds, err, c.want)
		}
		if d := time.Since(start); d > 15*time.Second { // generous (a shared machine); before the bound, planning never ended
			t.Errorf("%+v: %v to refuse", c.h, d)
		}
	}
	// the count is exact: eta = 1.01 from 1 to 1000 rounds makes the distinct budgets 1000/1.01ᵏ rounded
	var n int
	for k, last := 694, 0; k >= 0; k-- { // 1.01^694 ≤ 1000 < 1.01^695
		if b := int(math.Round(1000 / math.Pow(1.01, float64(k)))); b > last {
			n, last = n+1, b
		}
	}
	if _, err := (Halving{Eta: 1.01, First: 1}).Rungs(1000); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("would make %d rungs", n)) || n != 331 {
		t.Errorf("eta = 1.01: %v, want %d rungs", err, n)
	}
	for _, c := range []struct {
		h      Halving
		rounds int
		want   string
	}{
		{Halving{Eta: 1 + 1e-15, First: 40}, 100, "[40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100]"},
		{Halving{Eta: 1.0001, First: 1}, 5, "[1 2 3 4 5]"},
		{Halving{Eta: 1.2006, First: 1}, 100000, ""},
	} {
		got, err := c.h.Rungs(c.rounds)
		if err != nil || (c.want != "" && fmt.Sprint(got) != c.want) || len(got) > MaxRungs {
			t.Errorf("%+v over %d rounds: %v %v, want %s", c.h, c.rounds, got, err, c.want)
		}
	}
}

// TestHalvingDefaults: a halving's zero Eta is 3 and its zero First is
// max(eval_every, ⌊rounds/eta²⌋, 1), at most the rounds; given values stay.
func TestHalvingDefaults(t *testing.T) {
	for _, c := range []struct {
		h    Halving
		s    core.Settings
		want Halving
	}{
		{Halving{}, core.Settings{Rounds: 200, EvalEvery: 5}, Halving{Eta: 3, First: 22}}, // 200/9 = 22.2
		{Halving{}, core.Settings{Rounds: 60, EvalEvery: 20}, Halving{Eta: 3, First: 20}}, // 60/9 = 6.7 < eval_every
		{Halving{Eta: 2}, core.Settings{Rounds: 100}, Halving{Eta: 2, First: 25}},         // 100/4
		{Halving{Eta: 10}, core.Settings{Rounds: 50}, Halving{Eta: 10, First: 1}},         // 50/100 = 0.5: at least 1
		{Halving{}, core.Settings{Rounds: 10, EvalEvery: 50}, Halving{Eta: 3, First: 10}}, // at most the rounds
		{Halving{Eta: 4, First: 7}, core.Settings{Rounds: 90}, Halving{Eta: 4, First: 7}}, // given
	} {
		if got := c.h.For(c.s); got != c.want {
			t.Errorf("%+v for %d rounds every %d: %+v, want %+v", c.h, c.s.Rounds, c.s.EvalEvery, got, c.want)
		}
	}
	if got := (Rung{Index: 2, Of: 3, Rounds: 60}).Name(""); got != "rung 2 of 3 (60 rounds)" {
		t.Errorf("name %q", got)
	}
	if got := (Rung{Index: 1, Of: 3, Rounds: 7}).Name("tuning"); got != "tuning, rung 1 of 3 (7 rounds)" {
		t.Errorf("name %q", got)
	}
}
