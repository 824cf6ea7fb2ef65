package experiment

import (
	"runtime"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/registry"
)

// replyVectors bounds the model-sized vectors a run keeps per sampled
// client (its reply) and workerVectors those per client worker (scratch);
// serverVectors are the server's (state, broadcast, mean, evaluation).
// pipelineClientVectors is assumed per client for a multistage pipeline,
// whose stages are not inspected: the most any algorithm keeps.
const (
	replyVectors          = 2
	workerVectors         = 8
	serverVectors         = 8
	pipelineClientVectors = 5
)

// StateBytes estimates the bytes of the job's run's model-sized vectors:
// the server's, the client workers', the sampled clients' replies and, for
// algorithms that keep state per client (core.ClientStateful), that state
// for every client. The plan's limits (plan.Limits.States) and the cohorts
// of Execute (Cohorts.MaxState) are bounded with it.
func (j *Job) StateBytes() uint64 {
	clients, dim := j.Problem.Data.Clients(), j.Problem.Dim()
	sampled := clients
	if k := j.Settings.ClientsPerRound; k > 0 && k < clients {
		sampled = k
	}
	workers := j.Settings.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	perClient := pipelineClientVectors
	if j.Stages == nil {
		perClient = 0
		if alg, err := registry.BuildArgs[core.Algorithm](j.Args); err == nil {
			if s, ok := core.As[core.ClientStateful](alg); ok {
				perClient = s.ClientVectors()
			}
		}
	}
	vectors := budget.Sum(budget.Product(perClient, clients), budget.Product(replyVectors, sampled),
		budget.Product(workerVectors, workers), serverVectors)
	return budget.Product(int(min(vectors, 1<<62)), dim, 8)
}
