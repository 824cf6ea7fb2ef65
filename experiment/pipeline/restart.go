package pipeline

import (
	"cmp"
	"math"
	"slices"

	"github.com/fedlab/fedlab/core"
	"gonum.org/v1/gonum/mat"
)

// restartPoint returns the start of stage st.
func (p *Pipeline) restartPoint(st resolved, w0, model, avg []float64) []float64 {
	out := make([]float64, len(model))
	switch st.restart {
	case Last:
		copy(out, model)
	case Average:
		copy(out, avg)
	case Init:
		copy(out, w0)
	case Top:
		copy(out, model)
		TopS(out, st.keep, p.spec.Problem.Layout)
	case Rank:
		copy(out, model)
		RankS(out, st.keep, p.spec.Problem.Layout)
	}
	return out
}

// TopS keeps the s largest-magnitude weights of the regularized blocks of w
// (jointly; ties go to the lower index) and zeroes the other regularized
// weights. Unregularized blocks are unchanged.
func TopS(w []float64, s int, l core.Layout) {
	var idx []int
	for _, b := range l.Regularized() {
		for i := range b.Size() {
			idx = append(idx, b.Offset+i)
		}
	}
	if s >= len(idx) {
		return
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(w[b]), math.Abs(w[a])) })
	for _, i := range idx[max(s, 0):] {
		w[i] = 0
	}
}

// RankS replaces each regularized block of w, viewed as a Rows×Cols
// matrix, by its best rank-s approximation U_s Σ_s V_sᵀ (the s largest
// singular values).
func RankS(w []float64, s int, l core.Layout) {
	for _, b := range l.Regularized() {
		if s >= min(b.Rows, b.Cols) {
			continue
		}
		blk := b.Of(w)
		var svd mat.SVD
		if !svd.Factorize(mat.NewDense(b.Rows, b.Cols, slices.Clone(blk)), mat.SVDThin) {
			for i := range blk {
				blk[i] = math.NaN()
			}
			continue
		}
		sig := svd.Values(nil)
		k := min(max(s, 0), len(sig))
		if k == 0 {
			clear(blk)
			continue
		}
		var u, v mat.Dense
		svd.UTo(&u)
		svd.VTo(&v)
		us := mat.DenseCopyOf(u.Slice(0, b.Rows, 0, k))
		for j := range k {
			col := us.ColView(j).(*mat.VecDense)
			col.ScaleVec(sig[j], col)
		}
		mat.NewDense(b.Rows, b.Cols, blk).Mul(us, v.Slice(0, b.Cols, 0, k).T())
	}
}

// wrapped is a stage's algorithm: it records the start point and, when the
// next stage restarts at the average and the algorithm has none of its
// own, accumulates Σ_r (r+1)·w_{r+1} over the stage's rounds. It unwraps
// (core.Unwrapper), so the engine sees the algorithm's capabilities.
type wrapped struct {
	core.Algorithm
	name    string // the stage's algorithm, for messages
	stage   int    // 0-based
	average bool
	w0      []float64
	sum     []float64
	tmp     []float64
	weight  float64
	rounds  int
}

// Unwrap returns the stage's algorithm.
func (w *wrapped) Unwrap() core.Algorithm { return w.Algorithm }

func (w *wrapped) Init(env *core.Env) error {
	w.w0 = slices.Clone(env.W0)
	if w.average {
		w.sum = make([]float64, len(env.W0))
		w.tmp = make([]float64, len(env.W0))
	}
	return w.Algorithm.Init(env)
}

func (w *wrapped) Aggregate(rd *core.Round, mean *core.Message, ups []*core.Message) {
	w.Algorithm.Aggregate(rd, mean, ups)
	if w.average {
		w.rounds++
		a := float64(w.rounds)
		w.Algorithm.Model(w.tmp)
		for i, x := range w.tmp {
			w.sum[i] += a * x
		}
		w.weight += a
	}
}

// averageOf is the stage's weighted-average output.
func (w *wrapped) averageOf() []float64 {
	out := make([]float64, len(w.w0))
	if a, ok := core.As[Averager](w.Algorithm); ok {
		a.Average(out)
		return out
	}
	if w.weight == 0 {
		copy(out, w.w0)
		return out
	}
	for i, s := range w.sum {
		out[i] = s / w.weight
	}
	return out
}
