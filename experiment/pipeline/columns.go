package pipeline

import (
	"fmt"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// Columns returns the metric columns of the pipeline's records (see Run):
// "stage", then every metric, each followed by its _min and _max when a
// stage's algorithm keeps one model per node. It builds the stages'
// algorithms to know that, and returns a build's error as Run would
// report it.
func (p *Pipeline) Columns() ([]string, error) {
	_, nodes, err := p.algorithms()
	if err != nil {
		return nil, err
	}
	return p.columns(nodes), nil
}

// RecordRounds returns the rounds a run of the pipeline records: every
// stage's evaluated rounds (see grid), a later stage's start left out as
// when it continues from the previous stage's final model.
func (p *Pipeline) RecordRounds() []int {
	var out []int
	round := p.spec.Settings.RoundOffset
	for i, st := range p.stages {
		out = append(out, p.grid(round, round+st.Rounds, i == 0)...)
		round += st.Rounds
	}
	return out
}

// algorithms builds a fresh algorithm for every stage; nodes reports
// whether one of them keeps a model per node (core.Nodes).
func (p *Pipeline) algorithms() (algs []core.Algorithm, nodes bool, err error) {
	algs = make([]core.Algorithm, len(p.stages))
	for i, st := range p.stages {
		alg, err := registry.BuildArgs[core.Algorithm](st.args)
		if err != nil {
			return nil, false, fmt.Errorf("stage %d: %v", i+1, err)
		}
		algs[i] = alg
		_, ok := core.As[core.Nodes](alg)
		nodes = nodes || ok
	}
	return algs, nodes, nil
}

// columns returns the metric columns of the records, with per-node
// columns when nodes.
func (p *Pipeline) columns(nodes bool) []string {
	cols := []string{StageMetric}
	for _, m := range p.spec.Metrics {
		cols = append(cols, m.Name())
		if nodes {
			cols = append(cols, m.Name()+"_min", m.Name()+"_max")
		}
	}
	return cols
}
