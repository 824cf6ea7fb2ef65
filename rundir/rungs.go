package rundir

import "github.com/fedlab/fedlab/experiment"

// Rungs returns the executor of a halving sweep's rungs in d
// (plan.Builder.Halve): each rung's jobs run as one call c of the
// directory, named after the rung (experiment.Rung.Name) and marked with
// it.
func (d *Dir) Rungs(c Call) RungCalls { return RungCalls{d: d, call: c} }

// RungCalls executes the rungs of one halving sweep in a run directory.
type RungCalls struct {
	d    *Dir
	call Call
}

// ExecuteRung executes the jobs of rung as one call of the directory.
func (r RungCalls) ExecuteRung(rung experiment.Rung, jobs []experiment.Job) ([]experiment.Run, error) {
	c := r.call
	c.Name, c.Rung = rung.Name(c.Name), &rung
	return r.d.ExecuteCall(c, jobs)
}
