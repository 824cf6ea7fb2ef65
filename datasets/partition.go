package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// Partition methods accepted by Partition.
const (
	MethodIID       = "iid"
	MethodDirichlet = "dirichlet"
	MethodShards    = "shards"
)

// dirichletDraws is how many times PartitionDirichlet redraws before giving up
// on leaving no client empty.
const dirichletDraws = 100

// Partition splits d's samples over clients with the given method (see
// PartitionIID, PartitionDirichlet and PartitionShards). classes is the number
// of classes of d's labels (0 for regression; dirichlet needs classes > 0),
// alpha the Dirichlet concentration and shardsPerClient the shards per client.
// Every client receives at least one sample, or an error is returned.
func Partition(d *core.Data, classes int, method string, clients int, alpha float64, shardsPerClient int, rng *rand.Rand) ([]*core.Data, error) {
	var parts [][]int
	var err error
	switch method {
	case MethodIID:
		parts, err = PartitionIID(d.N, clients, rng)
	case MethodDirichlet:
		if classes <= 0 {
			return nil, fmt.Errorf("dirichlet partition needs class labels (set classes > 0)")
		}
		labels := make([]int, d.N)
		for i, y := range d.Y {
			labels[i] = int(y)
		}
		parts, err = PartitionDirichlet(labels, classes, clients, alpha, rng)
	case MethodShards:
		parts, err = PartitionShards(d.Y, clients, shardsPerClient, rng)
	default:
		known := []string{MethodIID, MethodDirichlet, MethodShards}
		return nil, fmt.Errorf("unknown partition method %q%s; known: %s", method, registry.DidYouMean(method, known), strings.Join(known, ", "))
	}
	if err != nil {
		return nil, err
	}
	out := make([]*core.Data, len(parts))
	for m, idx := range parts {
		out[m] = Subset(d, idx)
	}
	return out, nil
}

// PartitionIID shuffles the sample indices 0..n-1 and deals them out in
// contiguous runs whose sizes differ by at most one. Each part is sorted.
func PartitionIID(n, clients int, rng *rand.Rand) ([][]int, error) {
	if err := checkCounts(n, clients, 1); err != nil {
		return nil, err
	}
	perm := rng.Perm(n)
	parts := make([][]int, clients)
	for m := range clients {
		parts[m] = slices.Clone(perm[m*n/clients : (m+1)*n/clients])
		slices.Sort(parts[m])
	}
	return parts, nil
}

// PartitionDirichlet splits each class c's samples (labels in 0..classes-1)
// over the clients in proportions p_c ~ Dir(alpha·1): the class's samples are
// shuffled and cut at the rounded cumulative proportions. Small alpha gives
// skewed label distributions. If a client ends up empty the whole draw is
// repeated, up to 100 times, before an error. Each part is sorted.
func PartitionDirichlet(labels []int, classes, clients int, alpha float64, rng *rand.Rand) ([][]int, error) {
	if err := checkCounts(len(labels), clients, 1); err != nil {
		return nil, err
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("dirichlet partition: alpha must be positive and finite, got %g", alpha)
	}
	byClass := make([][]int, classes)
	for i, c := range labels {
		if c < 0 || c >= classes {
			return nil, fmt.Errorf("dirichlet partition: sample %d has label %d outside 0..%d", i, c, classes-1)
		}
		byClass[c] = append(byClass[c], i)
	}
	for range dirichletDraws {
		parts := make([][]int, clients)
		for _, idx := range byClass {
			if len(idx) == 0 {
				continue
			}
			perm := slices.Clone(idx)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			p := SampleDirichlet(rng, alpha, clients)
			cum, start := 0.0, 0
			for m := range clients {
				cum += p[m]
				end := int(math.Round(cum * float64(len(perm))))
				if m == clients-1 || end > len(perm) {
					end = len(perm)
				}
				end = max(end, start)
				parts[m] = append(parts[m], perm[start:end]...)
				start = end
			}
		}
		if !slices.ContainsFunc(parts, func(p []int) bool { return len(p) == 0 }) {
			for _, p := range parts {
				slices.Sort(p)
			}
			return parts, nil
		}
	}
	return nil, fmt.Errorf("dirichlet partition: some client got no samples in %d draws (alpha=%g, %d clients, %d samples); raise alpha or lower clients",
		dirichletDraws, alpha, clients, len(labels))
}

// PartitionShards is the pathological non-iid split of McMahan et al. (2017):
// samples are sorted by key (the label; ties in random order), cut into
// clients·perClient shards of near-equal size, and each client gets perClient
// shards chosen at random. Each part is sorted.
func PartitionShards(keys []float64, clients, perClient int, rng *rand.Rand) ([][]int, error) {
	n := len(keys)
	if perClient < 1 {
		return nil, fmt.Errorf("shards partition: shards_per_client must be >= 1, got %d", perClient)
	}
	if err := checkCounts(n, clients, perClient); err != nil {
		return nil, err
	}
	order := rng.Perm(n)
	sort.SliceStable(order, func(i, j int) bool { return keys[order[i]] < keys[order[j]] })
	shards := clients * perClient
	pick := rng.Perm(shards)
	parts := make([][]int, clients)
	for m := range clients {
		for _, s := range pick[m*perClient : (m+1)*perClient] {
			parts[m] = append(parts[m], order[s*n/shards:(s+1)*n/shards]...)
		}
		slices.Sort(parts[m])
	}
	return parts, nil
}

func checkCounts(n, clients, perClient int) error {
	if clients < 1 {
		return fmt.Errorf("partition: need at least one client, got %d", clients)
	}
	if n < clients*perClient {
		if perClient > 1 {
			return fmt.Errorf("partition: %d samples cannot fill %d clients × %d shards", n, clients, perClient)
		}
		return fmt.Errorf("partition: %d samples cannot fill %d clients", n, clients)
	}
	return nil
}

// Subset returns a copy of the rows idx of d, in that order, stored as d is.
func Subset(d *core.Data, idx []int) *core.Data { return d.Subset(idx) }

// Split shuffles d's rows and puts the last round(fraction·N) of them, at most
// N−1, into test and the rest into train; both keep d's row order. fraction
// must lie in [0, 1).
func Split(d *core.Data, fraction float64, rng *rand.Rand) (train, test *core.Data) {
	perm := rng.Perm(d.N)
	nTest := int(math.Round(fraction * float64(d.N)))
	nTest = max(min(nTest, d.N-1), 0)
	tr, te := perm[:d.N-nTest], perm[d.N-nTest:]
	slices.Sort(tr)
	slices.Sort(te)
	return Subset(d, tr), Subset(d, te)
}

// SampleGamma draws from Gamma(shape, 1) with the Marsaglia–Tsang method
// (shape ≥ 1), boosting shape < 1 by Gamma(shape+1)·U^(1/shape).
func SampleGamma(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		return SampleGamma(rng, shape+1) * math.Pow(uniformOpen(rng), 1/shape)
	}
	return math.Exp(logGammaMT(rng, shape))
}

// SampleDirichlet draws p ~ Dir(alpha·1_k). It works with log-gamma variates,
// so tiny alpha does not underflow to an all-zero vector.
func SampleDirichlet(rng *rand.Rand, alpha float64, k int) []float64 {
	logs := make([]float64, k)
	for i := range logs {
		if alpha < 1 {
			logs[i] = logGammaMT(rng, alpha+1) + math.Log(uniformOpen(rng))/alpha
		} else {
			logs[i] = logGammaMT(rng, alpha)
		}
	}
	top := slices.Max(logs)
	sum := 0.0
	for i, l := range logs {
		logs[i] = math.Exp(l - top)
		sum += logs[i]
	}
	for i := range logs {
		logs[i] /= sum
	}
	return logs
}

// logGammaMT returns log of a Gamma(shape, 1) draw, shape ≥ 1
// (Marsaglia & Tsang 2000).
func logGammaMT(rng *rand.Rand, shape float64) float64 {
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := uniformOpen(rng)
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return math.Log(d) + math.Log(v)
		}
	}
}

// uniformOpen draws from the open interval (0, 1).
func uniformOpen(rng *rand.Rand) float64 {
	for {
		if u := rng.Float64(); u > 0 {
			return u
		}
	}
}
