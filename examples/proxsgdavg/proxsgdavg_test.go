package proxsgdavg

import (
	"bytes"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	_ "github.com/fedlab/fedlab/algorithms"
	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/fedlabtest" // test_data: the data's kind does not matter here
	_ "github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
	_ "github.com/fedlab/fedlab/regularizers"
)

// The README shows this package's source; keep them identical.
func TestREADMEShowsThisFile(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("proxsgdavg.go")
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	body = body[strings.Index(body, "package proxsgdavg"):]
	if !strings.Contains(string(readme), body) {
		t.Fatal("README.md's Go example differs from examples/proxsgdavg/proxsgdavg.go")
	}
}

// With a constraint (projection) the example is parallel projected SGD,
// which FedMiD with η_s = 1 equals (the server projection is idempotent).
func TestEqualsFedMiDWithConstraint(t *testing.T) {
	data, err := registry.Build[*core.Federated](registry.Dataset, "test_data",
		map[string]any{"features": 20.0, "clients": 6.0, "samples": 30.0})
	if err != nil {
		t.Fatal(err)
	}
	loss, _ := registry.Build[core.Loss](registry.Loss, "squared", nil)
	pen, _ := registry.Build[core.Penalty](registry.Regularizer, "l2_ball", map[string]any{"radius": 0.5})
	s := core.Settings{Rounds: 20, ClientsPerRound: 3, LocalSteps: 4, Batch: 5, Seed: 2}
	var models [][]float64
	for _, name := range []string{"prox_sgd_avg", "fedmid"} {
		p, err := core.NewProblem(data, loss, pen, nil)
		if err != nil {
			t.Fatal(err)
		}
		params := map[string]any{"eta": 0.01}
		if name == "fedmid" {
			params = map[string]any{"eta_c": 0.01, "eta_s": 1.0}
		}
		a, err := registry.Build[core.Algorithm](registry.Algorithm, name, params)
		if err != nil {
			t.Fatal(err)
		}
		res := core.Run(p, a, s, nil)
		if res.Status != core.Done {
			t.Fatal(res.Err)
		}
		models = append(models, res.Model)
	}
	for i := range models[0] {
		if math.Abs(models[0][i]-models[1][i]) > 1e-12 {
			t.Fatalf("coordinate %d: %g vs %g", i, models[0][i], models[1][i])
		}
	}
}

// TestResumesFromACheckpoint: the example declares its state
// (core.Stateful), so a run checkpointed after round 7 and resumed from
// there ends with the uninterrupted run's model and records, bit for bit.
func TestResumesFromACheckpoint(t *testing.T) {
	data, err := registry.Build[*core.Federated](registry.Dataset, "test_data",
		map[string]any{"features": 20.0, "clients": 6.0, "samples": 30.0})
	if err != nil {
		t.Fatal(err)
	}
	loss, _ := registry.Build[core.Loss](registry.Loss, "squared", nil)
	pen, _ := registry.Build[core.Penalty](registry.Regularizer, "l1", map[string]any{"lambda": 0.05})
	run := func(s core.Settings) *core.Result {
		p, err := core.NewProblem(data, loss, pen, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err := registry.Build[core.Algorithm](registry.Algorithm, "prox_sgd_avg", map[string]any{"eta": 0.01})
		if err != nil {
			t.Fatal(err)
		}
		res := core.Run(p, a, s, nil)
		if res.Status != core.Done {
			t.Fatal(res.Status, res.Err)
		}
		return res
	}
	base := core.Settings{Rounds: 20, ClientsPerRound: 3, LocalSteps: 4, Batch: 5, Seed: 2, EvalEvery: 5, CheckpointKey: "k", AlgorithmName: "prox_sgd_avg"}
	whole := run(base)
	var ckpt bytes.Buffer
	s := base
	s.Checkpoint = func(done int, save func(io.Writer) error) error {
		if done == 7 {
			return save(&ckpt)
		}
		return nil
	}
	run(s)
	s = base
	s.Resume = ckpt.Bytes()
	resumed := run(s)
	if !reflect.DeepEqual(whole.Model, resumed.Model) || !reflect.DeepEqual(whole.Records, resumed.Records) {
		t.Errorf("the run resumed after round 7 differs from the uninterrupted run")
	}
}
