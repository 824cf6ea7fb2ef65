// Package algorithms holds fedlab's federated algorithms. Each file is one
// family and registers its members from init. The FCO family (FedAvg,
// FedAvg(∂), FedMiD, FedMiD-OSP, FedDualAvg, FedDualAvg-OSP) follows Yuan,
// Zaheer & Reddi, "Federated Composite Optimization", ICML 2021; see
// docs/algorithms/ for the update equations and the choices made on the
// paper's typos.
//
// Parameters are declared once, as tagged fields of a params struct per
// algorithm (registry.Define); shared groups (step sizes, Adam
// coefficients) are embedded structs.
package algorithms

import (
	"github.com/fedlab/fedlab/schedules/sched"
)

// clientStep is the client step-size schedule.
type clientStep struct {
	EtaC sched.Schedule `param:"eta_c" min:"0" doc:"client learning rate η_c (number, schedule or function of the round)"`
}

// stepSizes are the client and server step-size schedules shared by the
// federated algorithms.
type stepSizes struct {
	clientStep
	EtaS sched.Schedule `param:"eta_s" min:"0" doc:"server learning rate η_s (number, schedule or function of the round)"`
}

// defaultClientStep is η_c = 0.01.
var defaultClientStep = clientStep{EtaC: sched.Constant(0.01)}

// defaultStepSizes are η_c = 0.01 and η_s = 1.
var defaultStepSizes = stepSizes{clientStep: defaultClientStep, EtaS: sched.Constant(1)}

// rates holds a run's client and server step-size schedules and their
// values in the current round (set by Broadcast on the coordinator, read by
// client workers).
type rates struct {
	etaC, etaS sched.Schedule
	c, s       float64
}

// rates returns the schedules as a run's rates.
func (p stepSizes) rates() rates { return rates{etaC: p.EtaC, etaS: p.EtaS} }

// at fixes the step sizes of round r.
func (rt *rates) at(r int) {
	rt.c = rt.etaC.At(r)
	rt.s = rt.etaS.At(r)
}
