package experiment

import (
	"slices"
	"sync"

	"github.com/fedlab/fedlab/core"
)

// solveReferences computes, up to par at a time, the reference optima of
// the distinct problems of jobs that a metric of theirs uses, so that the
// problems of one call are solved in parallel rather than one after the
// other inside their first runs. Errors stay with each problem (its
// Reference returns them to the metric, as when solved lazily).
func solveReferences(jobs []Job, par int) {
	var problems []*core.Problem
	for i := range jobs {
		p := jobs[i].Problem
		if p == nil || slices.Contains(problems, p) || !slices.ContainsFunc(jobs[i].Metrics, usesReference) {
			continue
		}
		problems = append(problems, p)
	}
	if len(problems) < 2 {
		return // a single problem is solved by its first run, as before
	}
	todo := make(chan *core.Problem)
	var wg sync.WaitGroup
	for range min(par, len(problems)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range todo {
				_, _ = p.Reference() // an error stays with the problem
			}
		}()
	}
	for _, p := range problems {
		todo <- p
	}
	close(todo)
	wg.Wait()
}

// usesReference reports whether metric m needs the reference optimum.
func usesReference(m core.Metric) bool {
	u, ok := m.(core.ReferenceUser)
	return ok && u.UsesReference()
}
