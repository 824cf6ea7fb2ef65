package core

import (
	"math"
	"slices"
	"testing"
	"time"
)

// localSGD runs c.Steps minibatch gradient steps of size eta from the
// broadcast model and the server averages the clients' models: enough to
// make a run depend on the sampled clients, their minibatches and the
// order of the averaging.
type localSGD struct {
	eta float64
	w   []float64
}

func (a *localSGD) Init(env *Env) error { a.w = slices.Clone(env.W0); return nil }
func (a *localSGD) Shape() (MessageShape, MessageShape) {
	return MessageShape{Vecs: 1}, MessageShape{Vecs: 1}
}
func (a *localSGD) Broadcast(_ *Round, down *Message) { copy(down.Vecs[0], a.w) }
func (a *localSGD) ClientUpdate(_ *Round, c *Client, down, up *Message) {
	w, g := up.Vecs[0], c.Vec(0)
	copy(w, down.Vecs[0])
	for range c.Steps {
		c.Gradient(w, g)
		for i := range w {
			w[i] -= a.eta * g[i]
		}
	}
}
func (a *localSGD) Aggregate(_ *Round, mean *Message, _ []*Message) { copy(a.w, mean.Vecs[0]) }
func (a *localSGD) Model(dst []float64)                             { copy(dst, a.w) }

// failingAt panics in the client updates of round r (and after).
type failingAt struct {
	localSGD
	r int
}

func (a *failingAt) ClientUpdate(rd *Round, c *Client, down, up *Message) {
	if rd.R >= a.r {
		panic("client update failed")
	}
	a.localSGD.ClientUpdate(rd, c, down, up)
}

// spread builds M clients of n samples each in one dimension, client m's
// samples spread around 10m.
func spread(M, n int) *Federated {
	f := &Federated{Name: "spread", Features: 1}
	for m := range M {
		d := &Data{Features: 1, N: n}
		for i := range n {
			d.X = append(d.X, float64(10*m)+math.Sin(float64(7*m+i)))
			d.Y = append(d.Y, 0)
		}
		f.Train = append(f.Train, d)
	}
	return f
}

// sameResult fails unless got is res bit for bit (Elapsed aside).
func sameResult(t *testing.T, what string, got, want *Result) {
	t.Helper()
	if got.Status != want.Status || got.Err != want.Err || got.DivergedAt != want.DivergedAt {
		t.Fatalf("%s: status %s at %d (%q), alone %s at %d (%q)", what, got.Status, got.DivergedAt, got.Err, want.Status, want.DivergedAt, want.Err)
	}
	if !slices.Equal(got.Metrics, want.Metrics) || !slices.Equal(got.Model, want.Model) || (got.Model == nil) != (want.Model == nil) {
		t.Fatalf("%s: metrics %v model %v, alone %v %v", what, got.Metrics, got.Model, want.Metrics, want.Model)
	}
	if len(got.Records) != len(want.Records) {
		t.Fatalf("%s: %d records, alone %d", what, len(got.Records), len(want.Records))
	}
	for i, r := range got.Records {
		w := want.Records[i]
		if r.Round != w.Round || r.Up != w.Up || r.Down != w.Down || r.CommRounds != w.CommRounds || r.Samples != w.Samples ||
			!slices.EqualFunc(r.Values, w.Values, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
			t.Fatalf("%s: record %d is %+v, alone %+v", what, i, r, w)
		}
	}
}

// TestCohortEqualsRunsAlone runs a cohort of runs that converge, diverge
// (at once, or by a finite blow-up caught at an evaluation), fail in a
// client update, stop early (fewer rounds) or differ by seed, with 1, 2 and
// 3 client workers, and checks that every run's result is the one Run gives
// it alone, bit for bit, and that the members' Elapsed add up to at most
// the cohort's time.
func TestCohortEqualsRunsAlone(t *testing.T) {
	p := testProblem(t, spread(7, 9))
	base := Settings{Rounds: 12, ClientsPerRound: 3, LocalSteps: 4, Batch: 2, EvalEvery: 3}
	with := func(f func(*Settings)) Settings { s := base; f(&s); return s }
	type member struct {
		name string
		alg  func() Algorithm
		s    Settings
	}
	members := []member{
		{"sgd seed 1", func() Algorithm { return &localSGD{eta: 0.1} }, with(func(s *Settings) { s.Seed = 1 })},
		{"sgd seed 2", func() Algorithm { return &localSGD{eta: 0.1} }, with(func(s *Settings) { s.Seed = 2 })},
		{"sgd large step", func() Algorithm { return &localSGD{eta: 0.7} }, with(func(s *Settings) { s.Seed = 1 })},
		{"fails at round 5", func() Algorithm { return &failingAt{localSGD{eta: 0.1}, 5} }, with(func(s *Settings) { s.Seed = 1 })},
		{"explodes", func() Algorithm { return &divergent{} }, with(func(s *Settings) { s.Seed = 2 })},
		{"grows", func() Algorithm { return &growing{factor: 10} }, with(func(s *Settings) { s.Seed = 1 })},
		{"5 rounds", func() Algorithm { return &localSGD{eta: 0.1} }, with(func(s *Settings) { s.Seed = 1; s.Rounds = 5 })},
		{"no divergence test", func() Algorithm { return &localSGD{eta: 0.1} }, with(func(s *Settings) { s.Seed = 3; s.Divergence = math.Inf(1) })},
		{"one client per round", func() Algorithm { return &localSGD{eta: 0.1} }, with(func(s *Settings) { s.Seed = 4; s.ClientsPerRound = 1 })},
		{"epochs, full participation", func() Algorithm { return &localSGD{eta: 0.05} }, with(func(s *Settings) { s.Seed = 1; s.ClientsPerRound = 0; s.LocalEpochs = 1 })},
	}
	metrics := []Metric{objectiveMetric{}, trainLoss{}}
	for _, workers := range []int{1, 2, 3} {
		var cohort []Member
		var alone []*Result
		for _, m := range members {
			s := m.s
			s.Workers = workers
			alone = append(alone, Run(p, m.alg(), s, metrics))
			cohort = append(cohort, Member{Alg: m.alg(), Settings: s})
		}
		start := time.Now()
		got := RunCohort(p, cohort, metrics)
		wall := time.Since(start)
		var sum time.Duration
		for k, m := range members {
			sameResult(t, m.name, got[k], alone[k])
			sum += got[k].Elapsed
		}
		if sum > wall {
			t.Fatalf("workers %d: the members' Elapsed add up to %v, more than the cohort's %v", workers, sum, wall)
		}
		statuses := map[Status]int{}
		for _, r := range got {
			statuses[r.Status]++
		}
		if statuses[Failed] != 1 || statuses[Diverged] < 2 || statuses[Done] < 5 {
			t.Fatalf("workers %d: statuses %v: the cohort does not cover failed, diverged and done runs", workers, statuses)
		}
	}
}

// TestCohortStopsForInterrupt: a member's interrupt stops it at a round
// boundary with the records up to there, as it stops a run alone.
func TestCohortStopsForInterrupt(t *testing.T) {
	p := testProblem(t, spread(5, 4))
	s := Settings{Rounds: 20, LocalSteps: 2, EvalEvery: 1, Workers: 2}
	a, b := s, s
	a.Seed, b.Seed = 1, 2
	var roundsA, roundsB int
	a.Interrupt, a.Progress = func() bool { return roundsA >= 3 }, func(done, _ int) { roundsA = done }
	b.Interrupt, b.Progress = func() bool { return roundsB >= 3 }, func(done, _ int) { roundsB = done }
	got := RunCohort(p, []Member{{&localSGD{eta: 0.1}, a}, {&localSGD{eta: 0.2}, b}}, []Metric{objectiveMetric{}})
	for k, r := range got {
		if r.Status != Interrupted || r.Err != "interrupted after 3 of 20 rounds" || len(r.Records) != 4 {
			t.Fatalf("member %d: %s (%q), %d records; want interrupted after 3 rounds with 4 records", k, r.Status, r.Err, len(r.Records))
		}
	}
}

// TestBalanceSplitsTheWork: the client groups of a round are split until
// every worker has two, largest first, and no item is lost or repeated.
func TestBalanceSplitsTheWork(t *testing.T) {
	runners := make([]*runner, 5)
	for k := range runners {
		runners[k] = &runner{}
	}
	one := &work{client: 3}
	for k, m := range runners {
		one.items = append(one.items, item{m, k})
	}
	two := &work{client: 1, items: []item{{runners[0], 9}}}
	got := balance([]*work{two, one}, 2)
	var sizes []int
	seen := map[item]int{}
	for _, w := range got {
		sizes = append(sizes, len(w.items))
		for _, it := range w.items {
			seen[it]++
		}
	}
	if !slices.Equal(sizes, []int{2, 2, 1, 1}) {
		t.Fatalf("work sizes %v, want [2 2 1 1]: client 3's 5 items split into 2, 2 and 1, largest first", sizes)
	}
	if len(seen) != 6 {
		t.Fatalf("%d distinct items after balancing, want 6", len(seen))
	}
	for it, n := range seen {
		if n != 1 {
			t.Fatalf("item %+v appears %d times", it, n)
		}
	}
}
