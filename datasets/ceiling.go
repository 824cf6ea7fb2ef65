package datasets

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"

	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/registry"
)

// readCheckEvery is how many bytes of text a reader passes between two
// checks of the memory in use (the build's context is checked at every
// read; see readLimits.stopped).
const readCheckEvery = 8 << 20

// readLimits is what stops a file reader: the memory ceiling, and the
// context of the build whose end (fedlab run's --timeout, Ctrl-C, the
// memory ceiling seen by its guard) stops it at its next read, wherever it
// is in the file (a compressed file of a few MB can take minutes to read).
// A factory passes its registry.BuildContext's (limitsOf) down to the
// functions that read; each reading has its own, so readers of different
// builds in one process do not stop one another.
type readLimits struct {
	ceiling budget.Budget
	ctx     context.Context // nil: the reader is not stopped

	// The text readers' bounds (see boundedLines); a test sets smaller ones.
	maxLine    int   // the longest line of text; 0: MaxLine
	checkEvery int64 // bytes of text between two memory checks; 0: readCheckEvery
}

// limitsOf returns the limits of a build: its memory ceiling (the plan's,
// from plan.Limits, or the default) and its context.
func limitsOf(c registry.BuildContext) readLimits {
	return readLimits{ceiling: c.Budget(), ctx: c.Context}
}

// defaultLimits are the exported readers' (LoadCSV, ReadSVMLight, …): the
// default ceiling of the process's own limits (budget.Ceiling), no context.
func defaultLimits() readLimits { return readLimits{ceiling: budget.Ceiling(0)} }

// stopped returns the cause of the end of the limits' context, if it has
// ended.
func (l readLimits) stopped() error {
	if l.ctx == nil || l.ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("reading stopped: %w", context.Cause(l.ctx))
}

// CeilingError is the error of a reader stopped by the memory ceiling.
type CeilingError struct {
	Read   int64 // bytes of text read so far
	Used   uint64
	Budget budget.Budget
}

func (e *CeilingError) Error() string {
	return fmt.Sprintf("after %s of text, the data read take %s of memory, more than the ceiling of %s (%s): "+
		"the file is larger in memory than the ceiling allows (a compressed file can expand far beyond its size); "+
		"use a smaller file or raise --max-memory", budget.Format(uint64(e.Read)), budget.Format(e.Used), budget.Format(e.Budget.Limit), e.Budget.Source)
}

// liveHeap is the memory held by heap objects (live, or garbage not yet
// collected).
func liveHeap() uint64 { return readMetric("/memory/classes/heap/objects:bytes") }

// readMetric reads one runtime metric of bytes.
func readMetric(name string) uint64 {
	sample := []metrics.Sample{{Name: name}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// checkCeiling returns the cause of the end of l's context once it has
// ended (see readLimits), or a *CeilingError when the live heap passes
// l's ceiling (collecting first, so that only live data count), or, under a
// limit on the address space (ulimit -v), when all the memory the Go
// runtime has mapped does, which a collection does not give back (the
// measure of fedlab run's guard). A reader stops there as soon as the heap
// passes the ceiling while it reads (a compressed file of a few MB can
// expand to many GB of valid lines). The ceiling of a registered dataset
// is the plan's (registry.BuildContext.Budget, from plan.Limits: fedlab
// run's --max-memory); the exported readers (LoadCSV, ReadSVMLight, …) stop at
// the default ceiling of the process's own limits (budget.Ceiling).
func checkCeiling(read int64, l readLimits) error {
	if err := l.stopped(); err != nil {
		return err
	}
	b := l.ceiling
	if b.Limit == 0 {
		return nil
	}
	if b.AddressSpace {
		if used := readMetric("/memory/classes/total:bytes"); used > b.Limit {
			return &CeilingError{Read: read, Used: used, Budget: b}
		}
		return nil
	}
	if liveHeap() <= b.Limit {
		return nil
	}
	runtime.GC()
	if used := liveHeap(); used > b.Limit {
		return &CeilingError{Read: read, Used: used, Budget: b}
	}
	return nil
}

// checkGrowth returns a *CeilingError when allocating extra bytes more
// would take the memory in use past l's ceiling (collecting first), read
// bytes of text into the reading, or the cause of the end of l's context:
// the check before a buffer grows.
func checkGrowth(read int64, extra uint64, l readLimits) error {
	if err := l.stopped(); err != nil {
		return err
	}
	b := l.ceiling
	if b.Limit == 0 {
		return nil
	}
	used := func() uint64 {
		if b.AddressSpace {
			return readMetric("/memory/classes/total:bytes")
		}
		return liveHeap()
	}
	if used()+extra <= b.Limit {
		return nil
	}
	runtime.GC()
	if u := used() + extra; u > b.Limit {
		return &CeilingError{Read: read, Used: u, Budget: b}
	}
	return nil
}
