package regularizers

import (
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

func TestRegistryBuild(t *testing.T) {
	cases := []struct {
		name   string
		raw    map[string]any
		reg    core.Regularizer
		lambda float64
	}{
		{"none", nil, None{}, 1},
		{"l1", map[string]any{"lambda": 0.1}, L1{}, 0.1},
		{"l2sq", map[string]any{"lambda": 2}, L2Sq{}, 2},
		{"elastic_net", map[string]any{"lambda": 0.3}, ElasticNet{L1Ratio: 0.5}, 0.3},
		{"elastic_net", map[string]any{"lambda": 0.3, "l1_ratio": 0.9}, ElasticNet{L1Ratio: 0.9}, 0.3},
		{"nuclear", map[string]any{"lambda": 0.05}, Nuclear{}, 0.05},
		{"l1_ball", map[string]any{"radius": 4}, L1Ball{Radius: 4}, 1},
		{"l2_ball", map[string]any{"radius": 0.5}, L2Ball{Radius: 0.5}, 1},
	}
	for _, c := range cases {
		p, err := registry.Build[core.Penalty](registry.Regularizer, c.name, c.raw)
		if err != nil {
			t.Errorf("%s %v: %v", c.name, c.raw, err)
			continue
		}
		if p.Name != c.name || p.Reg != c.reg || p.Lambda.At(0) != c.lambda || p.Lambda.At(50) != c.lambda {
			t.Errorf("%s %v built %+v (λ₀=%g), want %#v with λ=%g", c.name, c.raw, p, p.Lambda.At(0), c.reg, c.lambda)
		}
	}
	// Every registered regularizer is covered above.
	for _, n := range registry.Names(registry.Regularizer) {
		found := false
		for _, c := range cases {
			found = found || c.name == n
		}
		if !found {
			t.Errorf("registered regularizer %q is not tested", n)
		}
	}
}

func TestRegistryLambdaSchedule(t *testing.T) {
	p, err := registry.Build[core.Penalty](registry.Regularizer, "l1", map[string]any{"lambda": sched.Table{0.1, 0.2, 0.4}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Lambda.At(1) != 0.2 || p.Lambda.At(9) != 0.4 {
		t.Errorf("λ schedule not kept: At(1)=%g At(9)=%g", p.Lambda.At(1), p.Lambda.At(9))
	}
	l := vecLayout(1)
	dst := []float64{0}
	p.At(2, l).Prox(dst, []float64{1}, 1)
	if dst[0] != 0.6 {
		t.Errorf("prox at round 2 = %g, want 1 − 0.4", dst[0])
	}
}

func TestRegistryErrors(t *testing.T) {
	cases := []struct {
		name string
		raw  map[string]any
		want []string
	}{
		{"l1", map[string]any{"lamda": 0.1}, []string{`unknown parameter "lamda"`, `did you mean "lambda"`, "valid keys: lambda"}},
		{"elastic_net", map[string]any{"lambda": 1, "l1ratio": 0.2}, []string{`"l1ratio"`, `"l1_ratio"`, "valid keys: lambda, l1_ratio"}},
		{"l2_ball", map[string]any{"raduis": 1}, []string{`"raduis"`, "valid keys: radius"}},
		{"none", map[string]any{"lambda": 1}, []string{`"lambda"`, "takes no parameters"}},
		{"l1", nil, []string{`missing required parameter "lambda"`}},
		{"nuclear", nil, []string{`missing required parameter "lambda"`}},
		{"l1_ball", nil, []string{`missing required parameter "radius"`}},
		{"l1", map[string]any{"lambda": -0.1}, []string{`"lambda"`, "below its minimum"}},
		{"elastic_net", map[string]any{"lambda": 1, "l1_ratio": 1.5}, []string{`"l1_ratio"`, "above its maximum"}},
		{"l1_ball", map[string]any{"radius": 0}, []string{`"radius"`, "> 0"}},
		{"l2_ball", map[string]any{"radius": -2}, []string{`"radius"`, "below its minimum"}},
		{"l1_norm", nil, []string{`unknown regularizer "l1_norm"`, "elastic_net, l1, l1_ball, l2_ball, l2sq, none, nuclear"}},
	}
	for _, c := range cases {
		_, err := registry.Build[core.Penalty](registry.Regularizer, c.name, c.raw)
		if err == nil {
			t.Errorf("%s %v: no error", c.name, c.raw)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %v: error %q does not mention %q", c.name, c.raw, err, w)
			}
		}
	}
}

func TestRegistryMirror(t *testing.T) {
	m, err := registry.Build[core.Mirror](registry.Mirror, "euclidean", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m != (core.Euclidean{}) {
		t.Errorf("euclidean built %#v", m)
	}
	if _, err := registry.Build[core.Mirror](registry.Mirror, "euclidean", map[string]any{"p": 2}); err == nil ||
		!strings.Contains(err.Error(), "takes no parameters") {
		t.Errorf("euclidean with a parameter: error %v", err)
	}
}

// TestSpecsDocumented: every spec and parameter has a one-line doc.
func TestSpecsDocumented(t *testing.T) {
	for _, k := range []registry.Kind{registry.Regularizer, registry.Mirror} {
		for _, s := range registry.Specs(k) {
			if s.Doc == "" || strings.Contains(s.Doc, "\n") {
				t.Errorf("%s: doc %q is not one line", s.Title(), s.Doc)
			}
			for _, p := range s.Params {
				if p.Doc == "" || strings.Contains(p.Doc, "\n") {
					t.Errorf("%s: parameter %s doc %q is not one line", s.Title(), p.Name, p.Doc)
				}
			}
		}
	}
}
