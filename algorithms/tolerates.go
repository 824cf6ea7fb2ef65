package algorithms

import "github.com/fedlab/fedlab/core"

// System effects each algorithm handles (see core.Tolerant and
// docs/realism.md). An algorithm missing here takes none: the engine
// refuses availability models, compression and DP for it.

// allEffects: ClientUpdate runs c.Steps steps; every vector sent up is an
// update (a difference to the broadcast); Aggregate reads only the mean, is
// valid for any subset of the sampled clients, and the scalars sent up
// (step counts) do not depend on the data.
const allEffects = core.Dropout | core.UnequalSteps | core.CompressedUp | core.CompressedDown | core.ClientDP

// Tolerates: FedAvg and FedAvg(∂) (and FedAdam, FedAvg with the Adam
// server optimizer) send w_K − w_r; the server optimizer steps with the mean.
func (a *FedAvg) Tolerates() core.Effects { return allEffects }

// Tolerates: FedMiD sends ∇h(w_K) − ∇h(w_r) and η_c·K_m; the server's prox
// uses the mean of η_c·K_m, so unequal K_m are accounted for.
func (a *FedMiD) Tolerates() core.Effects { return allEffects }

// Tolerates: FedDualAvg sends z_K − z_r (the dual update, not the state)
// and η_c·K_m; the server's running sum of step sizes takes their mean.
func (a *FedDualAvg) Tolerates() core.Effects { return allEffects }

// Tolerates: FedCM sends x_K − x_r and K_m; the momentum direction divides
// by η_c times the mean K_m.
func (a *FedCM) Tolerates() core.Effects { return allEffects }

// Tolerates: SCAFFOLD sends Δy and Δc (updates); the control-variate share
// is summed over the clients that replied, and Δc divides by each client's
// own K_m. Not DP: each client's control variate keeps its unclipped Δc.
func (a *Scaffold) Tolerates() core.Effects {
	return core.Dropout | core.UnequalSteps | core.CompressedUp | core.CompressedDown
}

// Tolerates: FedProx averages local models (states, not updates: no uplink
// compression or DP); inexact local solves (fewer steps) are its setting.
func (a *FedProx) Tolerates() core.Effects {
	return core.Dropout | core.UnequalSteps | core.CompressedDown
}

// Tolerates: FedAvg with decaying local steps averages local models, and
// its local step index K·r assumes every client runs K steps.
func (a *FedAvgDecay) Tolerates() core.Effects { return core.Dropout | core.CompressedDown }

// Tolerates: Local-Adapt sends x_K − x_r after K_m AMSGrad steps from fresh
// states; the server optimizer steps with the mean.
func (a *LocalAdapt) Tolerates() core.Effects { return allEffects }

// Tolerates: Local-AMSGrad averages the clients' states (x, m, v̂), which
// is defined for any subset and any K_m; states, not updates, go up.
func (a *LocalAMSGrad) Tolerates() core.Effects {
	return core.Dropout | core.UnequalSteps | core.CompressedDown
}

// Tolerates: STEM averages states (x, d) and advances its step counter by
// the mean K_m sent up.
func (a *STEM) Tolerates() core.Effects {
	return core.Dropout | core.UnequalSteps | core.CompressedDown
}

// Tolerates: MIME-MVR sends x_K − x_r but also the states c(x), c(x_prev)
// whose mean forms the momentum; it advances its counter by the mean K_m.
func (a *MimeMVR) Tolerates() core.Effects {
	return core.Dropout | core.UnequalSteps | core.CompressedDown
}

// Tolerates: Fast-FedDA averages the states (g, w̃); its time t advances by
// the fixed local step count e, so every client must run e steps.
func (a *FastFedDA) Tolerates() core.Effects { return core.Dropout | core.CompressedDown }

// Tolerates: the FedDA family averages the clients' dual states z (and the
// estimator ν), not updates; the server's primal uses the mean step-size
// sum e and its counter advances by the mean K_m, so unequal K_m are
// accounted for.
func (a *FedDA) Tolerates() core.Effects {
	return core.Dropout | core.UnequalSteps | core.CompressedDown
}
