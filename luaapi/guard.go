package luaapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/rundir"
)

// guard bounds a script: its context ends on a signal or a time limit
// (Options.Context) or when the process's heap passes the memory ceiling.
type guard struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	budget budget.Budget // data and state estimates are checked against it
	stderr io.Writer     // where a runaway is reported before the process exits
	done   chan struct{}
	// gcLimit is the Go runtime's soft memory limit before the guard
	// lowered it to the runaway bound (-1: not lowered), restored at stop.
	gcLimit int64
}

// MemoryCeiling is the cause of a script stopped by the memory ceiling.
type MemoryCeiling struct {
	Used   uint64
	Budget budget.Budget
}

// Error says what happened and what to do.
func (e *MemoryCeiling) Error() string {
	return fmt.Sprintf("memory ceiling reached: the process holds %s, more than the ceiling of %s (%s): a string or table that grows without bound, or data too large (--max-memory sets the ceiling)",
		budget.Format(e.Used), budget.Format(e.Budget.Limit), e.Budget.Source)
}

// memoryCheck is how often the guard measures the heap.
const memoryCheck = 10 * time.Millisecond

// runawayBound is the memory at which a process whose script the ceiling
// (or a signal, or a time limit) has stopped is ended: the ceiling and half
// of it again. Code that honours its context stops allocating when the
// script is stopped; a component that neither declares its size
// (registry.Sizer) nor checks its context would go on until the kernel
// kills the process, so the guard ends it first, with the ceiling's
// message. The half leaves room for the one allocation in flight when the
// ceiling is passed (the default ceiling is half the available memory, so
// the bound stays below it).
func runawayBound(b budget.Budget) uint64 { return budget.Sum(b.Limit, b.Limit/2) }

// newGuard starts the guard of a script under the memory ceiling b (the
// plan's, plan.Limits.Ceiling: Options.MaxMemory, or the share of the
// process's limits that budget.Ceiling gives; the datasets the plan builds
// stop reading files at the same ceiling). Under a ceiling, the Go
// runtime's soft memory limit
// is also lowered to the runaway bound while the script runs (a backstop:
// the garbage collector works harder before garbage can push the process
// past it).
func newGuard(opts Options, b budget.Budget) *guard {
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	g := &guard{budget: b, stderr: opts.Stderr, done: make(chan struct{}), gcLimit: -1}
	g.ctx, g.cancel = context.WithCancelCause(parent)
	if g.budget.Limit > 0 {
		if bound := runawayBound(g.budget); bound < math.MaxInt64 {
			if prev := debug.SetMemoryLimit(-1); int64(bound) < prev {
				g.gcLimit = debug.SetMemoryLimit(int64(bound))
			}
		}
		go g.watch()
	}
	return g
}

// watch cancels the context when the process passes the ceiling: its live
// heap, or, under a limit on its address space (ulimit -v), all the memory
// the Go runtime has mapped, which a garbage collection does not give back
// and which the next doubling of a string must fit beside. It goes on
// watching until the script ends: a process that passes the runaway bound
// after its context ended is ended (see runaway).
func (g *guard) watch() {
	tick := time.NewTicker(memoryCheck)
	defer tick.Stop()
	sample := []metrics.Sample{{Name: heldMetric(g.budget)}}
	bound := runawayBound(g.budget)
	for {
		select {
		case <-g.done:
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Uint64() <= g.budget.Limit {
			continue
		}
		if !g.budget.AddressSpace {
			runtime.GC() // count live data only
			metrics.Read(sample)
		}
		used := sample[0].Value.Uint64()
		switch {
		case used > bound && g.ctx.Err() != nil:
			g.runaway(used)
		case used > g.budget.Limit && g.ctx.Err() == nil:
			g.cancel(&MemoryCeiling{Used: used, Budget: g.budget})
			runtime.GC()
		}
	}
}

// runaway ends the process: the script was stopped, and something goes on
// allocating past the runaway bound (a component that neither declares its
// size nor checks its context). Go cannot stop that goroutine, and the
// kernel would end the process without a word: the ceiling's message is
// printed as fedlab prints errors, and the process exits with status 1,
// the status of the memory ceiling. The run directory keeps what was
// written before (its files are written atomically; the next run resumes).
func (g *guard) runaway(used uint64) {
	w := g.stderr
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "fedlab: %s; a component went on allocating after the script was stopped (it declares no size and does not check its context), so the process ends at %s\n",
		&MemoryCeiling{Used: used, Budget: g.budget}, budget.Format(runawayBound(g.budget)))
	os.Exit(1)
}

// stop ends the guard.
func (g *guard) stop() {
	close(g.done)
	g.cancel(nil)
	if g.gcLimit >= 0 {
		debug.SetMemoryLimit(g.gcLimit)
	}
}

// interruption turns the error of a script whose context ended into a
// *rundir.Interrupted naming the script line it stopped at.
func (g *guard) interruption(name string, err error) error {
	if g.ctx.Err() == nil {
		return err
	}
	var intr *rundir.Interrupted
	if errors.As(err, &intr) {
		return err
	}
	where := name
	if err != nil {
		if m := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `:\d+`).FindString(err.Error()); m != "" {
			where = m
		}
	}
	return &rundir.Interrupted{Where: where, Cause: context.Cause(g.ctx)}
}

// heldMetric names the runtime metric that counts against b: the heap's
// objects (live or not yet collected), or, under a limit on the address
// space, all the memory the Go runtime has mapped.
func heldMetric(b budget.Budget) string {
	if b.AddressSpace {
		return "/memory/classes/total:bytes"
	}
	return "/memory/classes/heap/objects:bytes"
}

// held reads what the process holds against the guard's ceiling now (see
// heldMetric).
func (g *guard) held() uint64 {
	sample := []metrics.Sample{{Name: heldMetric(g.budget)}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}
