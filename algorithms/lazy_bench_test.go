//go:build unix

package algorithms

import (
	"fmt"
	"testing"

	"github.com/fedlab/fedlab/internal/cputime"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// opaque hides a regularizer's closed-form capabilities, so the dense
// client update runs on sparse data (the simple alternative the lazy
// steps are compared with).
type opaque struct{ core.Regularizer }

// spread returns f with feature j moved to j·factor in a space of
// Features·factor features: the same rows and overlaps, spread over a
// larger model.
func spread(f *core.Federated, factor int) *core.Federated {
	out := *f
	out.Features *= factor
	out.Truth = nil
	out.Train = nil
	for _, d := range f.Train {
		sp := &core.CSR{Ptr: d.Sparse.Ptr, Val: d.Sparse.Val, Ind: make([]int32, len(d.Sparse.Ind))}
		for k, j := range d.Sparse.Ind {
			sp.Ind[k] = j * int32(factor)
		}
		out.Train = append(out.Train, &core.Data{Sparse: sp, Y: d.Y, N: d.N, Features: out.Features})
	}
	return &out
}

// BenchmarkSparseLocalStep times one local step (batch 10, 50 nonzeros per
// row, least squares, ℓ1 with λ = 10⁻³) of FedDualAvg, FedMiD, FedAvg and
// FedAvg(∂) on sparse data, with the lazy O(nnz) steps and with the dense
// O(d) steps on the same sparse data. Data: "2^10" is sparse_federated at
// d = 2¹⁰ (1000 rows, Zipf features); "2^20-spread" is the same rows with
// feature j moved to 1024·j in d = 2²⁰ (same work, memory spread over the
// larger model); "2^20" is sparse_federated drawn at d = 2²⁰ (more distinct
// features per batch). One ClientUpdate runs b.N local steps, so ns/op is
// the cost of one step; the round's O(d) work (copying the broadcast,
// catching up, the reply) is amortized over the b.N steps. cpu-ns/op is
// the process's CPU time per step (getrusage), which, unlike the wall
// time, does not count the time other processes hold the CPU.
func BenchmarkSparseLocalStep(b *testing.B) {
	gen := func(logd int) *core.Federated {
		data, err := registry.Build[*core.Federated](registry.Dataset, "sparse_federated", map[string]any{
			"dim": 1 << logd, "support": 10, "clients": 1, "samples": 1000, "nnz": 50, "seed": 1})
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	small := gen(10)
	for _, v := range []struct {
		name string
		data *core.Federated
	}{{"2^10", small}, {"2^20-spread", spread(small, 1024)}, {"2^20", gen(20)}} {
		loss, _ := registry.Build[core.Loss](registry.Loss, "squared", map[string]any{"intercept": false})
		pen, _ := registry.Build[core.Penalty](registry.Regularizer, "l1", map[string]any{"lambda": 1e-3})
		p, err := core.NewProblem(v.data, loss, pen, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []string{"lazy", "dense"} {
			for _, name := range []string{"feddualavg", "fedmid", "fedavg", "fedavg_subgrad"} {
				b.Run(fmt.Sprintf("%s/d=%s/%s", name, v.name, mode), func(b *testing.B) {
					s := &core.Settings{Rounds: 1, LocalSteps: 1, Batch: 10}
					a := algo(b, name, map[string]any{"eta_c": 0.01})
					if err := a.Init(&core.Env{Problem: p, W0: make([]float64, p.Dim()), Settings: s}); err != nil {
						b.Fatal(err)
					}
					down, up := a.Shape()
					dn, upm := core.NewMessage(down, p.Dim()), core.NewMessage(up, p.Dim())
					rd := &core.Round{R: 1, Psi: p.Penalty.At(1, p.Layout), Mirror: p.Mirror, Sampled: []int{0}, Weights: []float64{1}}
					if mode == "dense" {
						rd.Psi.Reg = opaque{rd.Psi.Reg}
						if name == "fedavg" {
							b.Skip("plain FedAvg ignores ψ: its sparse steps are always O(nnz)")
						}
					}
					a.Broadcast(rd, dn)
					c := core.NewClient(p, 0, s)
					c.StartRound(1, 0, 1)
					a.ClientUpdate(rd, c, dn, upm) // allocate the scratch
					c.Steps = b.N
					b.ReportAllocs()
					cpu := cputime.Now()
					b.ResetTimer()
					a.ClientUpdate(rd, c, dn, upm)
					b.StopTimer()
					b.ReportMetric(float64(cputime.Now()-cpu)/float64(b.N), "cpu-ns/op")
				})
			}
		}
	}
}
