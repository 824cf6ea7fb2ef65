package datasets

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"

	"github.com/fedlab/fedlab/internal/budget"
)

// readCheckEvery is how many bytes of text a reader passes between two
// checks of the memory in use.
const readCheckEvery = 8 << 20

var (
	ceilingMu sync.Mutex
	ceiling   *budget.Budget // nil: the default ceiling (budget.Ceiling(0)), read at the first check
)

// SetMemoryCeiling sets the memory the file readers may fill: a reader
// stops with a *CeilingError as soon as the live heap passes b.Limit while
// it reads (a compressed file of a few MB can expand to many GB of valid
// lines). fedlab run sets it to its --max-memory ceiling; a Go program that
// does not call it gets the default ceiling of fedlab run (budget.Ceiling).
func SetMemoryCeiling(b budget.Budget) {
	ceilingMu.Lock()
	defer ceilingMu.Unlock()
	ceiling = &b
}

func memoryCeiling() budget.Budget {
	ceilingMu.Lock()
	defer ceilingMu.Unlock()
	if ceiling == nil {
		b := budget.Ceiling(0)
		ceiling = &b
	}
	return *ceiling
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

// liveHeap is the memory held by live objects after a collection.
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// checkCeiling returns a *CeilingError when the live heap passes the
// ceiling (collecting first, so that only live data count).
func checkCeiling(read int64) error {
	b := memoryCeiling()
	if b.Limit == 0 || liveHeap() <= b.Limit {
		return nil
	}
	runtime.GC()
	if used := liveHeap(); used > b.Limit {
		return &CeilingError{Read: read, Used: used, Budget: b}
	}
	return nil
}
