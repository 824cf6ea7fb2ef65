package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fedlab/fedlab/internal/cputime"

	_ "github.com/fedlab/fedlab/algorithms"
	"github.com/fedlab/fedlab/core"
)

// memStore is a Store in memory: the runs it holds completed, and a log
// of what the session asked of it.
type memStore struct {
	held    map[string]*core.Result
	log     []string
	ended   [][]Run
	outcome *Outcome
}

func (m *memStore) Completed(j *Job) (*core.Result, bool, error) {
	m.log = append(m.log, "completed "+j.Key)
	res, ok := m.held[j.Key]
	return res, ok, nil
}

func (m *memStore) Plan(c Call, jobs, todo []Job) error {
	m.log = append(m.log, fmt.Sprintf("plan %s: %d jobs, %d to run", c.Where, len(jobs), len(todo)))
	return nil
}

func (m *memStore) Checkpoints() Checkpoints { return nil }

func (m *memStore) Save(j *Job, r Run) error {
	m.log = append(m.log, "save "+j.Key)
	m.held[j.Key] = r.Result
	return nil
}

func (m *memStore) EndCall(runs []Run) error {
	m.log = append(m.log, fmt.Sprintf("end: %d runs", len(runs)))
	m.ended = append(m.ended, runs)
	return nil
}

func (m *memStore) Finish(o Outcome) error {
	m.outcome = &o
	return nil
}

// TestASessionExecutesCallsAgainstAnyStore: a Session needs no run
// directory: against a store in memory it asks the store once for each
// distinct run, executes only those the store does not hold (a key planned
// twice executes once, and a later call executes nothing), saves each run
// it executed, returns the runs in the order of the jobs (the executed
// run's records those of Execute alone, the stored run the store's), and
// finishes with its counts.
func TestASessionExecutesCallsAgainstAnyStore(t *testing.T) {
	jobs := plan(t, testBase(t), []uint64{1, 2}, AlgoSpec{Name: "test_gd", Params: map[string]any{"eta_c": 0.1}})
	jobs = append(jobs, jobs[0]) // planned twice
	stored := &core.Result{Status: core.Done}
	store := &memStore{held: map[string]*core.Result{jobs[1].Key: stored}}
	s := NewSession(store, SessionOptions{Name: "s.lua", Jobs: 2})
	runs, err := s.Execute("fedlab.compare", "s.lua:4", nil, jobs)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Execute(jobs[:1], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[1].Result != stored || runs[0].Result != runs[2].Result || runs[0].Key != jobs[0].Key ||
		!slices.Equal(runs[0].Result.Records[len(runs[0].Result.Records)-1].Values, alone[0].Result.Records[len(alone[0].Result.Records)-1].Values) {
		t.Fatalf("runs %+v, want job 1 executed as alone, job 2 the stored run, job 3 job 1's run", runs)
	}
	if _, err := s.ExecuteCall(Call{Function: "fedlab.compare", Where: "s.lua:9"}, jobs); err != nil {
		t.Fatal(err)
	}
	want := []string{"completed " + jobs[0].Key, "completed " + jobs[1].Key, "plan s.lua:4: 3 jobs, 1 to run", "save " + jobs[0].Key, "end: 3 runs",
		"plan s.lua:9: 3 jobs, 0 to run", "end: 3 runs"}
	if !slices.Equal(store.log, want) {
		t.Errorf("the store was asked\n%q\nwant\n%q", store.log, want)
	}
	if err := s.Finish(nil); err != nil {
		t.Fatal(err)
	}
	if o := store.outcome; o == nil || o.Err != nil || o.Stopped || o.Interrupted || o.Ran != 1 || o.Reused != 1 {
		t.Errorf("outcome %+v, want completed with 1 run executed and 1 reused", o)
	}
}

// TestAShardStopsAtACallWithRunsOfOtherShards: shard 1/2 executes the run
// at position 1 of the call's distinct runs, saves it, ends the call and
// stops with the *Stopped error naming the runs left to the other shard;
// every later call stops with it without asking the store, and the
// outcome is a stop.
func TestAShardStopsAtACallWithRunsOfOtherShards(t *testing.T) {
	jobs := plan(t, testBase(t), []uint64{1, 2, 3}, AlgoSpec{Name: "test_gd", Params: map[string]any{"eta_c": 0.1}})
	store := &memStore{held: map[string]*core.Result{}}
	s := NewSession(store, SessionOptions{Shard: Shard{Index: 1, Count: 2}})
	_, err := s.Execute("fedlab.sweep", "s.lua:4", nil, jobs)
	var stop *Stopped
	if !errors.As(err, &stop) || stop.Elsewhere != 2 || err.Error() != "shard 1/2 stopped at the call at s.lua:4: 2 of its runs belong to other shards; "+
		"merge the shard directories (fedlab merge) and run the script into the merged directory to go on" {
		t.Fatalf("err %v, want shard 1/2's stop with 2 runs elsewhere", err)
	}
	if len(store.ended) != 1 || store.ended[0][0].Result != nil || store.ended[0][1].Result == nil || store.ended[0][2].Result != nil {
		t.Errorf("the call ended with %+v, want the run at position 1 only", store.ended)
	}
	asked := len(store.log)
	if _, err := s.Execute("fedlab.compare", "s.lua:9", nil, jobs); err != stop || len(store.log) != asked {
		t.Errorf("the next call: %v, the store asked %q, want the same stop and nothing asked", err, store.log[asked:])
	}
	s.Finish(err)
	if o := store.outcome; !o.Stopped || o.Interrupted || o.Ran != 1 {
		t.Errorf("outcome %+v, want a stop with 1 run executed", o)
	}
}

// TestAnInterruptedSessionEndsItsCall: when the session's context has
// ended, the call executes no run, the store saves none and ends the call
// without runs, and the error is an *Interrupted naming the call and the
// cause; the outcome is an interruption.
func TestAnInterruptedSessionEndsItsCall(t *testing.T) {
	jobs := plan(t, testBase(t), []uint64{1, 2}, AlgoSpec{Name: "test_gd", Params: map[string]any{"eta_c": 0.1}})
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("time limit reached"))
	store := &memStore{held: map[string]*core.Result{}}
	s := NewSession(store, SessionOptions{Context: ctx})
	_, err := s.Execute("fedlab.compare", "s.lua:4", nil, jobs)
	var intr *Interrupted
	if !errors.As(err, &intr) || err.Error() != "s.lua:4: time limit reached" {
		t.Fatalf("err %v, want the call's interruption", err)
	}
	if want := []string{"completed " + jobs[0].Key, "completed " + jobs[1].Key, "plan s.lua:4: 2 jobs, 2 to run", "end: 0 runs"}; !slices.Equal(store.log, want) ||
		store.ended[0] != nil {
		t.Errorf("the store was asked %q, want %q (the call ended without runs)", store.log, want)
	}
	s.Finish(nil)
	if o := store.outcome; !o.Interrupted || o.Stopped || o.Ran != 0 {
		t.Errorf("outcome %+v, want an interruption with no run executed", o)
	}
}

// burnCPU spins until the process has used d more CPU time.
func burnCPU(t *testing.T, d time.Duration) {
	t.Helper()
	start, _ := cputime.Process()
	for {
		if now, _ := cputime.Process(); now-start >= d {
			return
		}
	}
}

// TestASessionAccountsItsCPUTime: the outcome's CPU time (the manifest's
// cpu_seconds) is the CPU time the process used between NewSession and
// Finish: at least what the session burnt, at most what the process used
// around it, and not what it used before.
func TestASessionAccountsItsCPUTime(t *testing.T) {
	if _, ok := cputime.Process(); !ok {
		t.Skip("the system does not report CPU time: the manifest leaves cpu_seconds out")
	}
	outside, inside := 400*time.Millisecond, 200*time.Millisecond
	if testing.Short() {
		outside, inside = 100*time.Millisecond, 50*time.Millisecond
	}
	burnCPU(t, outside) // before the session: not its time
	before, _ := cputime.Process()
	store := &memStore{held: map[string]*core.Result{}}
	s := NewSession(store, SessionOptions{})
	if _, err := s.Execute("fedlab.compare", "s.lua:4", nil, plan(t, testBase(t), []uint64{1}, AlgoSpec{Name: "test_gd", Params: map[string]any{"eta_c": 0.1}})); err != nil {
		t.Fatal(err)
	}
	burnCPU(t, inside)
	if err := s.Finish(nil); err != nil {
		t.Fatal(err)
	}
	after, _ := cputime.Process()
	if got, most := store.outcome.CPU, after-before; got < inside || got > most {
		t.Errorf("CPU %v, want between the %v burnt in the session and the %v the process used around it", got, inside, most)
	}
}

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/5"); err != nil || s != (Shard{2, 5}) || s.String() != "2/5" {
		t.Errorf("2/5: %v %v", s, err)
	}
	for _, bad := range []string{"5/5", "-1/3", "1", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// memCheckpoints keeps the last checkpoint of each run in memory, with the
// elapsed time Save was given, and resumes from it as if it had run for
// before.
type memCheckpoints struct {
	mu     sync.Mutex
	data   map[string][]byte
	saved  map[string]time.Duration // the elapsed time of the last Save
	before time.Duration
}

func (c *memCheckpoints) Resume(j *Job) ([]byte, time.Duration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data[j.Key] == nil {
		return nil, 0, nil
	}
	return c.data[j.Key], c.before, nil
}

func (c *memCheckpoints) Save(j *Job, done int, elapsed time.Duration, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.data[j.Key], c.saved[j.Key] = data, elapsed
	return nil
}

func (c *memCheckpoints) Refused(j *Job, why string)     { panic("refused: " + why) }
func (c *memCheckpoints) Unsupported(j *Job, why string) { panic("unsupported: " + why) }

// TestAResumedRunCountsItsTimeBeforeTheCheckpoint: a run resumed from a
// checkpoint that records 1000 s of earlier time ends with those 1000 s
// in its elapsed time, and the checkpoint it saves records them too, so
// the time a run took adds up over the executions that ran it.
func TestAResumedRunCountsItsTimeBeforeTheCheckpoint(t *testing.T) {
	jobs := plan(t, testBase(t), []uint64{1}, AlgoSpec{Name: "fedavg", Params: map[string]any{"eta_c": 0.05}})
	ck := &memCheckpoints{data: map[string][]byte{}, saved: map[string]time.Duration{}}
	first, err := Execute(jobs, Options{Checkpoints: ck, CheckpointEvery: time.Nanosecond})
	if err != nil || ck.data[jobs[0].Key] == nil {
		t.Fatalf("no checkpoint saved: %v", err)
	}
	if e := first[0].Result.Elapsed; e > time.Minute {
		t.Fatalf("a run from round 0 took %v", e)
	}
	ck.before = 1000 * time.Second
	again, err := Execute(jobs, Options{Checkpoints: ck, CheckpointEvery: time.Nanosecond, KeepCheckpoints: true}) // saved after its last round too
	if err != nil {
		t.Fatal(err)
	}
	if e := again[0].Result.Elapsed; e < 1000*time.Second || e > 1000*time.Second+time.Minute {
		t.Errorf("the resumed run's elapsed time %v, want 1000 s and its own", e)
	}
	if e := ck.saved[jobs[0].Key]; e < 1000*time.Second || e > 1000*time.Second+time.Minute {
		t.Errorf("its checkpoint records %v, want 1000 s and its own", e)
	}
}
