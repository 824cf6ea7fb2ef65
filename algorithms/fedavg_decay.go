package algorithms

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// FedAvgDecayParams are FedAvg-GD/SGD's parameters.
type FedAvgDecayParams struct {
	clientStep
	Power  float64 `param:"power" min:"0" doc:"decay exponent over the global local-step count (0.5: the paper's 4/√(Qr + q + 1); 0: constant, FedAvg-GD)"`
	Offset float64 `param:"offset" min:"0" doc:"added to the step count K·r + q; offset + K·r > 0 is needed when power > 0"`
}

func init() {
	registry.Define(registry.Algorithm, "fedavg_decay",
		"FedAvg-GD/SGD of the FedPD paper (Alg. 1): local steps η_c/(offset + K·r + q)^power, the server averages models",
		FedAvgDecayParams{clientStep: defaultClientStep, Power: 0.5, Offset: 1},
		func(p FedAvgDecayParams) (core.Algorithm, error) {
			return &FedAvgDecay{etaC: p.EtaC, power: p.Power, offset: p.Offset}, nil
		})
}

// FedAvgDecay is FedAvg as the FedPD paper analyses it (Alg. 1, after Local
// SGD): every client starts from the server model x_r and takes K steps
//
//	x ← x − η_{r,q} ∇f_i(x; ξ),   η_{r,q} = η_c(r) / (offset + K·r + q)^power,
//
// q = 0..K−1, and the server averages the local models. The step decays with
// the global count of local steps K·r + q, which a per-round schedule cannot
// express: the paper's FedAvg-SGD is η_c = 4, power = ½, offset = 1 (in its
// normalization). With power = 0 the step is constant and this is FedAvg-GD
// (fedavg with η_s = 1, up to rounding). The round index r counts from 0
// (and continues across pipeline stages).
type FedAvgDecay struct {
	etaC          sched.Schedule
	power, offset float64
	c             float64
	w             []float64
}

// Init copies the initial model.
func (a *FedAvgDecay) Init(env *core.Env) error {
	a.w = append([]float64(nil), env.W0...)
	return nil
}

// Shape: the model down, the local model up.
func (a *FedAvgDecay) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1}
}

// Broadcast fixes the round's base step and sends x_r.
func (a *FedAvgDecay) Broadcast(rd *core.Round, down *core.Message) {
	a.c = a.etaC.At(rd.R)
	copy(down.Vecs[0], a.w)
}

// ClientUpdate runs K decaying-step SGD steps from x_r and replies x_K.
func (a *FedAvgDecay) ClientUpdate(rd *core.Round, c *core.Client, down, up *core.Message) {
	x, g := up.Vecs[0], c.Vec(0)
	copy(x, down.Vecs[0])
	t0 := a.offset + float64(c.Steps)*float64(rd.R)
	for q := range c.Steps {
		step := a.c
		if a.power != 0 {
			step /= math.Pow(t0+float64(q), a.power)
		}
		c.Gradient(x, g)
		floats.AddScaled(x, -step, g)
	}
}

// Aggregate sets x_{r+1} to the weighted mean of the local models.
func (a *FedAvgDecay) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	copy(a.w, mean.Vecs[0])
}

// Model is the server model.
func (a *FedAvgDecay) Model(dst []float64) { copy(dst, a.w) }

// State declares the server model (core.Stateful).
func (a *FedAvgDecay) State(st *core.State) { st.Floats("server model", a.w) }
