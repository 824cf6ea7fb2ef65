package metrics

import (
	"strings"
	"sync"
)

// Display describes how a metric is shown in figures and tables.
type Display struct {
	Label  string // human axis label, e.g. "optimality gap Φ(w) − Φ(w*)"
	Better Better // which direction is better (for bold best values)
	Log    bool   // drawn on a logarithmic axis by default (gaps, errors, norms)
	// NonNegative: the values are ≥ 0; Unit: they lie in [0, 1]. Figures
	// keep the ± std band inside that range.
	NonNegative, Unit bool
}

// Better says which values of a metric are better.
type Better int

// Directions of Better.
const (
	Unknown Better = iota // neither (counters, densities): no best value
	Lower
	Higher
)

var (
	displayMu sync.RWMutex
	displays  = map[string]Display{
		"objective":      {Label: "objective Φ(w)", Better: Lower},
		"train_loss":     {Label: "training loss", Better: Lower},
		"test_loss":      {Label: "test loss", Better: Lower},
		"regularizer":    {Label: "regularizer ψ(w)"},
		"train_accuracy": {Label: "training accuracy", Better: Higher, Unit: true},
		"test_accuracy":  {Label: "test accuracy", Better: Higher, Unit: true},
		"l2_error":       {Label: "ℓ2 error ‖w − w*‖₂", Better: Lower, Log: true, NonNegative: true},
		"l1_error":       {Label: "ℓ1 error ‖w − w*‖₁", Better: Lower, Log: true, NonNegative: true},
		"fro_error":      {Label: "Frobenius error ‖W − W*‖_F", Better: Lower, Log: true, NonNegative: true},
		"op_error":       {Label: "operator-norm error ‖W − W*‖₂", Better: Lower, Log: true, NonNegative: true},
		"opt_gap":        {Label: "optimality gap Φ(w) − Φ(w*)", Better: Lower, Log: true},
		"loss_gap":       {Label: "loss gap F(w) − F(w*)", Better: Lower, Log: true},
		"stationarity":   {Label: "stationarity ‖∇F(w)‖²", Better: Lower, Log: true, NonNegative: true},
		"consensus":      {Label: "consensus ‖wᵐ − w̄‖₂", Better: Lower, Log: true, NonNegative: true},
		"comm_up":        {Label: "floats sent up (client → server)", NonNegative: true},
		"comm_down":      {Label: "floats sent down (server → client)", NonNegative: true},
		"comm":           {Label: "floats communicated (up + down)", NonNegative: true},
		"comm_rounds":    {Label: "communication rounds", NonNegative: true},
		"samples":        {Label: "samples accessed", NonNegative: true},
		"bits_up":        {Label: "bits sent up (client → server)", NonNegative: true},
		"bits_down":      {Label: "bits sent down (server → client)", NonNegative: true},
		"bits":           {Label: "bits communicated (up + down)", NonNegative: true},
		"epsilon":        {Label: "privacy ε spent (client-level DP)", NonNegative: true},
		"precision":      {Label: "support precision", Better: Higher, Unit: true},
		"recall":         {Label: "support recall", Better: Higher, Unit: true},
		"f1":             {Label: "support F1 score", Better: Higher, Unit: true},
		"density":        {Label: "density (fraction of nonzero weights)", Unit: true},
		"nnz":            {Label: "nonzero weights", NonNegative: true},
		"rank":           {Label: "rank", NonNegative: true},
		"stage":          {Label: "stage", NonNegative: true},
	}
)

// SetDisplay registers or replaces how the metric name is displayed.
func SetDisplay(name string, d Display) {
	displayMu.Lock()
	defer displayMu.Unlock()
	displays[name] = d
}

// DisplayOf returns how the metric name is displayed. Node metrics'
// "_min" and "_max" columns take their base metric's entry with "(min
// over nodes)" or "(max over nodes)" appended; metrics not registered
// display as their name, with log scale for names ending in "_gap",
// "_error" or "_norm".
func DisplayOf(name string) Display {
	displayMu.RLock()
	d, ok := displays[name]
	displayMu.RUnlock()
	if ok {
		return d
	}
	for suffix, what := range map[string]string{"_min": "min", "_max": "max"} {
		if base, found := strings.CutSuffix(name, suffix); found {
			displayMu.RLock()
			d, ok := displays[base]
			displayMu.RUnlock()
			if ok {
				d.Label += " (" + what + " over nodes)"
				return d
			}
		}
	}
	d = Display{Label: name}
	for _, s := range []string{"_gap", "_error", "_norm"} {
		if strings.HasSuffix(name, s) {
			d.Log, d.Better = true, Lower
			d.NonNegative = s != "_gap" // a gap to a reference can dip below 0 by round-off
		}
	}
	return d
}
