package algorithms

import (
	"github.com/fedlab/fedlab/algorithms/serveropt"
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// adamCoefficients are the Adam coefficients shared by FedAdam,
// Local-AMSGrad and Local-Adapt.
type adamCoefficients struct {
	Beta1 float64 `param:"beta1" min:"0" max:"1" doc:"momentum coefficient β₁ (weight of the old first moment)"`
	Beta2 float64 `param:"beta2" min:"0" max:"1" doc:"second-moment coefficient β₂ (weight of the old second moment; the FedDA paper's 0.999)"`
}

var defaultAdamCoefficients = adamCoefficients{Beta1: 0.9, Beta2: 0.999}

// FedAdamParams are the parameters of the fedadam shorthand.
type FedAdamParams struct {
	stepSizes
	adamCoefficients
	Tau float64 `param:"tau" min:"0" doc:"adaptivity constant τ of x += η_s·m/(√v + τ); v starts at τ²"`
}

func init() {
	registry.Define(registry.Algorithm, "fedadam",
		"FedAdam (Reddi et al. 2021), shorthand for fedavg{eta_c, eta_s, server = fedlab.opt.adam{lr = 1, beta1, beta2, tau}}; ignores ψ",
		FedAdamParams{stepSizes: defaultStepSizes, adamCoefficients: defaultAdamCoefficients, Tau: 1e-3},
		func(p FedAdamParams) (core.Algorithm, error) {
			return &FedAvg{rates: p.rates(), Server: serverAdam(p.adamCoefficients, p.Tau)}, nil
		})
}

// serverAdam is the server Adam step x ← x + η_s·m/(√v + τ) of FedAdam
// (Reddi et al. 2021, Alg. 2; m₋₁ = 0, v₋₁ = τ², no bias correction).
func serverAdam(c adamCoefficients, tau float64) serveropt.Adam {
	return serveropt.Adam{Adaptive: serveropt.Adaptive{LR: 1, Beta1: c.Beta1, Beta2: c.Beta2, Tau: tau}}
}
