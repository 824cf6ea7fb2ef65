package experiment

// Call is one call of a script or Go plan that executes runs: its
// function, name, place, a sweep's selection rules and, for a rung of a
// successive-halving sweep, the rung. A run directory's manifest records
// it with the call's runs (rundir.Call).
type Call struct {
	Function string `json:"function"`         // e.g. "fedlab.sweep"
	Name     string `json:"name,omitempty"`   // the call's name given by the script, if any
	Where    string `json:"where"`            // e.g. "sweep.lua:12"
	Select   []Rule `json:"select,omitempty"` // a sweep's selection rules
	Rung     *Rung  `json:"rung,omitempty"`   // the rung of a successive-halving sweep the call is
}

// CallExecutor executes the jobs of one call and returns their runs in
// the order of the jobs (Session: reusing the runs its Store holds).
type CallExecutor interface {
	ExecuteCall(c Call, jobs []Job) ([]Run, error)
}

// Rungs returns the executor of a halving sweep's rungs
// (plan.Builder.Halve) on exec: each rung's jobs run as one call c of
// exec, named after the rung (Rung.Name) and marked with it.
func Rungs(exec CallExecutor, c Call) RungCalls { return RungCalls{exec: exec, call: c} }

// RungCalls executes the rungs of one halving sweep, each as one call.
type RungCalls struct {
	exec CallExecutor
	call Call
}

// ExecuteRung executes the jobs of rung as one call.
func (r RungCalls) ExecuteRung(rung Rung, jobs []Job) ([]Run, error) {
	c := r.call
	c.Name, c.Rung = rung.Name(c.Name), &rung
	return r.exec.ExecuteCall(c, jobs)
}
