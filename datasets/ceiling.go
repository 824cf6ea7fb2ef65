package datasets

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"

	"github.com/fedlab/fedlab/internal/budget"
)

// readCheckEvery is how many bytes of text a reader passes between two
// checks of the memory in use (the read context is checked at every read;
// see readStopped).
const readCheckEvery = 8 << 20

var (
	readMu  sync.Mutex
	readCtx context.Context // nil: readers are not stopped (see SetReadContext)
)

// SetReadContext sets the context that stops the file readers: once it
// ends (a signal, a time limit, the memory ceiling seen by fedlab run's
// guard), a reader stops at its next read of the file with the context's
// cause, wherever it is in the file (a compressed file of a few MB can
// take minutes to read). fedlab run sets it to its script's context while
// the script runs, and nil (readers not stopped) after.
func SetReadContext(ctx context.Context) {
	readMu.Lock()
	defer readMu.Unlock()
	readCtx = ctx
}

// readStopped returns the cause of the read context's end, if it has
// ended (see SetReadContext).
func readStopped() error {
	readMu.Lock()
	ctx := readCtx
	readMu.Unlock()
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("reading stopped: %w", context.Cause(ctx))
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

// checkCeiling returns a *CeilingError when the live heap passes the
// ceiling b (collecting first, so that only live data count), or, under a
// limit on the address space (ulimit -v), when all the memory the Go
// runtime has mapped does, which a collection does not give back (the
// measure of fedlab run's guard); or the read context's cause once it has
// ended (see SetReadContext). A reader stops there as soon as the heap
// passes the ceiling while it reads (a compressed file of a few MB can
// expand to many GB of valid lines). The ceiling of a registered dataset
// is the plan's (registry.BuildContext.Budget, from plan.Limits: fedlab
// run's --max-memory); the exported readers (LoadCSV, ReadSVMLight, …) stop at
// the default ceiling of the process's own limits (budget.Ceiling).
func checkCeiling(read int64, b budget.Budget) error {
	if err := readStopped(); err != nil {
		return err
	}
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
// would take the memory in use past the ceiling b (collecting first), read
// bytes of text into the reading: the check before a buffer grows.
func checkGrowth(read int64, extra uint64, b budget.Budget) error {
	if err := readStopped(); err != nil {
		return err
	}
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
