package core

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Initializer is implemented by losses that declare their default initial
// model (Settings.Init "" or "default"). A loss that does not implement it
// starts at zero, as linear and convex models do.
type Initializer interface {
	// DefaultInit names the loss's default initial model: "zeros", or the
	// scheme Initialize draws (e.g. "kaiming_uniform"). A loss names a
	// scheme other than "zeros" exactly when its zero model cannot learn (a
	// network with hidden layers: every hidden unit gets the same, zero,
	// gradient), and Settings.Init = "zeros" is then refused.
	DefaultInit() string
	// Initialize writes the default initial model, laid out as l, into w,
	// drawing from r. It is called only when DefaultInit is not "zeros".
	Initialize(w []float64, l Layout, r *rand.Rand)
}

// Init values other than a loss's own scheme name (see ResolveInit).
const (
	InitDefault = "default" // the loss's default (also Settings.Init = "")
	InitZeros   = "zeros"   // the zero model
	InitNormal  = "normal"  // N(0, InitScale²) for every parameter
)

// ResolveInit returns the initial model that init (a Settings.Init) means
// for loss: "" and "default" become the loss's default (see Initializer:
// "zeros" for losses without one; "" stays "" then, so that the identities
// of runs that left it empty keep their keys), "zeros" and "normal" stay, and a scheme
// name is accepted for the loss that declares it. It refuses "zeros" for a
// loss whose zero model cannot learn, saying why and what to use, and a
// scheme name the loss does not declare.
func ResolveInit(loss Loss, init string) (string, error) {
	scheme := InitZeros
	if in, ok := loss.(Initializer); ok {
		scheme = in.DefaultInit()
	}
	switch init {
	case "":
		if scheme == InitZeros {
			return "", nil // the zero model, as "" meant before losses declared defaults (run keys unchanged)
		}
		return scheme, nil
	case InitDefault:
		return scheme, nil
	case InitNormal:
		return init, nil
	case InitZeros:
		if scheme != InitZeros {
			return "", fmt.Errorf(`init = "zeros": the loss's hidden layers cannot learn from a zero model (every hidden unit gets the same, zero, gradient); leave init out for the loss's default (%q), or give init = "normal" with an init_scale`, scheme)
		}
		return init, nil
	case scheme:
		return init, nil
	}
	return "", fmt.Errorf(`init = %q: want "default" (the loss's own: %q), "zeros" or "normal"`, init, scheme)
}

// initStream is the first index of the initial model's random stream
// (streamKey.derive; client streams use round indices).
const initStream = math.MaxUint64

// initialModel writes the run's initial model into w0 (zeroed): Settings.W0
// if given, else the model Settings.Init names for the problem's loss,
// drawn from the run's initialization stream (the same for every
// algorithm at a seed).
func (e *engine) initialModel(w0 []float64) error {
	s := e.s
	if s.W0 != nil {
		if len(s.W0) != len(w0) {
			return fmt.Errorf("initial model has %d parameters, the problem needs %d", len(s.W0), len(w0))
		}
		copy(w0, s.W0)
		return nil
	}
	init, err := ResolveInit(e.p.Loss, s.Init)
	if err != nil {
		return err
	}
	if init == InitZeros || init == "" {
		return nil
	}
	r := rand.New(rand.NewPCG(e.key.derive(initStream, 0)))
	if init == InitNormal {
		for i := range w0 {
			w0[i] = s.InitScale * r.NormFloat64()
		}
		return nil
	}
	e.p.Loss.(Initializer).Initialize(w0, e.p.Layout, r)
	return nil
}
