//go:build unix

package core_test

import (
	"testing"

	"github.com/fedlab/fedlab/internal/cputime"

	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/datasets" // registers the lasso dataset
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules/sched"
)

// BenchmarkReferenceLasso solves the reference optimum of the four
// problems of scripts/fco_lasso.lua (the FCO paper's LASSO (I)–(IV), seed
// 1, plain MSE with an intercept, λ of the script) with coordinate descent
// and with restarted FISTA, both to the default certificate tolerance. It
// reports the process's CPU time per solve (cpu-s/op) next to the wall
// time: on a shared machine it is the steadier figure.
func BenchmarkReferenceLasso(b *testing.B) {
	for _, v := range []struct {
		name   string
		lambda float64
	}{{"I", 0.3}, {"II", 0.1}, {"III", 0.3}, {"IV", 0.3}} {
		data, err := registry.Build[*core.Federated](registry.Dataset, "lasso", map[string]any{"variant": v.name, "seed": 1})
		if err != nil {
			b.Fatal(err)
		}
		p, err := core.NewProblem(data, losses.Squared{Intercept: true},
			core.Penalty{Name: "l1", Reg: regularizers.L1{}, Lambda: sched.Constant(v.lambda)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		benchSolvers(b, v.name, p)
	}
}

// BenchmarkReferenceSparse solves the reference optimum of the problem of
// scripts/sparse_10k_clients.lua (10,000 clients of 10 samples, d = 2²⁰,
// 10⁶ nonzeros, ½-MSE without intercept, λ = 1e-3) with coordinate descent
// (O(nonzeros) per sweep on compressed columns) and with restarted FISTA.
func BenchmarkReferenceSparse(b *testing.B) {
	data, err := registry.Build[*core.Federated](registry.Dataset, "sparse_federated", map[string]any{
		"dim": 1 << 20, "support": 20, "clients": 10000, "samples": 10, "nnz": 10, "exponent": 1.1, "noise": 0.1, "seed": 1})
	if err != nil {
		b.Fatal(err)
	}
	p, err := core.NewProblem(data, losses.Squared{Half: true},
		core.Penalty{Name: "l1", Reg: regularizers.L1{}, Lambda: sched.Constant(1e-3)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	benchSolvers(b, "10k", p)
}

// benchSolvers times Solve (coordinate descent on these problems) and
// SolveFISTA on p at the default settings, as sub-benchmarks name/cd and
// name/fista.
func benchSolvers(b *testing.B, name string, p *core.Problem) {
	psi := p.Penalty.At(0, p.Layout)
	for _, s := range []struct {
		name  string
		solve func(*core.Problem, core.Psi, []float64, core.SolveSettings) (*core.Reference, error)
	}{{"cd", core.Solve}, {"fista", core.SolveFISTA}} {
		b.Run(name+"/"+s.name, func(b *testing.B) {
			var ref *core.Reference
			var err error
			cpu0 := cputime.Now()
			for b.Loop() {
				if ref, err = s.solve(p, psi, nil, core.SolveSettings{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Now()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(ref.Iters), "iters")
			b.ReportMetric(ref.Residual*1e9, "certificate_1e-9")
		})
	}
}
