package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/schedules/sched"
)

// identityFormat versions the identity; changing what a key covers must
// change it, so that old run directories are not reused by mistake.
const identityFormat = 1

// keyLength is the number of hexadecimal digits of a run key (64 bits).
const keyLength = 16

// Component identifies a registered component by name and fully resolved
// parameters, in canonical form (see Canonical).
type Component struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params,omitempty"`
}

// NewComponent returns the canonical identity of a component with the given
// resolved parameters.
func NewComponent(name string, params map[string]any) Component {
	c := Component{Name: name}
	if len(params) > 0 {
		c.Params = make(map[string]any, len(params))
		for k, v := range params {
			c.Params[k] = Canonical(v)
		}
	}
	return c
}

// ProblemID identifies a problem by its parts.
type ProblemID struct {
	Data     Component  `json:"data"`
	Loss     Component  `json:"loss"`
	Reg      Component  `json:"reg"`
	Mirror   *Component `json:"mirror,omitempty"` // nil: Euclidean
	Weighted bool       `json:"weighted,omitempty"`
}

// SettingsID is the part of core.Settings that determines a run's numbers
// (not the worker count, nor the seed, which Identity holds).
type SettingsID struct {
	Rounds          int     `json:"rounds"`
	ClientsPerRound int     `json:"clients_per_round"`
	LocalSteps      int     `json:"local_steps"`
	Epochs          int     `json:"epochs"`
	Batch           int     `json:"batch"`
	EvalEvery       int     `json:"eval_every"`
	Init            string  `json:"init"`
	InitScale       float64 `json:"init_scale"`
	// Divergence is the divergence factor (core.Settings.Divergence) when
	// it is not the default, in canonical form; absent otherwise, so runs
	// under the default keep their keys.
	Divergence any `json:"divergence,omitempty"`
	System
}

// System identifies the system effects of a run (core/effects.go); absent
// effects are left out, so runs without them keep their keys.
type System struct {
	Availability *Component `json:"availability,omitempty"`
	CompressUp   *Component `json:"compress_up,omitempty"`
	CompressDown *Component `json:"compress_down,omitempty"`
	Privacy      *Component `json:"privacy,omitempty"`
}

// settingsID extracts the identity of engine settings.
func settingsID(s core.Settings) SettingsID {
	id := SettingsID{Rounds: s.Rounds, ClientsPerRound: s.ClientsPerRound, LocalSteps: s.LocalSteps,
		Epochs: s.LocalEpochs, Batch: s.Batch, EvalEvery: s.EvalEvery, Init: s.Init, InitScale: s.InitScale}
	if s.Divergence != 0 && s.Divergence != core.DefaultDivergence {
		id.Divergence = Canonical(s.Divergence)
	}
	return id
}

// Identity is everything that determines the records and model of a run:
// two runs with equal identities give bit-identical results. The label is
// not part of it.
type Identity struct {
	Format    int         `json:"format"`
	Algorithm Component   `json:"algorithm"`
	Problem   ProblemID   `json:"problem"`
	Settings  SettingsID  `json:"settings"`
	Metrics   []Component `json:"metrics"`
	Seed      uint64      `json:"seed"`
	// Stages identifies a multistage pipeline run (Algorithm is then
	// "stages"); absent for single-algorithm runs, whose keys it leaves
	// unchanged.
	Stages []StageID `json:"stages,omitempty"`
}

// StageID identifies one stage of a pipeline run: its algorithm with
// resolved parameters (the constraint radius included), penalty weight,
// rounds, local steps and restart.
type StageID struct {
	Algorithm  Component `json:"algorithm"`
	Lambda     any       `json:"lambda,omitempty"` // canonical schedule; nil: the problem's
	Rounds     int       `json:"rounds"`
	LocalSteps int       `json:"local_steps,omitempty"`
	Restart    string    `json:"restart"`
	Keep       int       `json:"keep,omitempty"`
}

// Nested identifies a component given as the parameter of another (a
// schedule, a topology) by its kind, name and resolved parameters, not by
// its built value.
type Nested struct {
	Kind string `json:"kind"`
	Component
}

// Key is the first 16 hexadecimal digits of the SHA-256 of the identity's
// JSON encoding (object keys sorted, numbers in their shortest exact form).
func (id Identity) Key() string {
	b, err := json.Marshal(id)
	if err != nil {
		panic(fmt.Sprintf("experiment: identity cannot be encoded: %v", err)) // Canonical makes every value encodable
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:keyLength]
}

// Canonical converts a resolved parameter value to a JSON-encodable value
// that determines it: numbers stay numbers (non-finite ones become the
// strings "NaN", "+Inf", "-Inf"), constant schedules become numbers,
// tabulated schedules and float lists become lists, and other schedules
// their Go type and fields ("schedules.Geometric{Start:0.3 ...}").
func Canonical(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int:
		return x
	case float64:
		return canonicalFloat(x)
	case sched.Constant:
		return canonicalFloat(float64(x))
	case []float64:
		return canonicalFloats(x)
	case sched.Table:
		return canonicalFloats(x)
	case Nested:
		return x
	}
	return fmt.Sprintf("%T%+v", v, v)
}

func canonicalFloat(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return x
}

func canonicalFloats(xs []float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = canonicalFloat(x)
	}
	return out
}
