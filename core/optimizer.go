package core

// ServerOptimizer is a server optimizer (registry kind "optimizer"), in the
// spirit of optax: FedAvg-style algorithms hand it the round's
// pseudo-gradient Δ (the weighted mean of the clients' updates, a direction
// of descent) and it moves the server point. The component is a
// configuration shared by runs; Start returns the state of one run.
type ServerOptimizer interface {
	// Start returns a fresh optimizer state for models of dimension dim.
	Start(dim int) ServerStepper
}

// ServerStepper is one run's optimizer state.
type ServerStepper interface {
	// Step updates the state with Δ and moves x: x ← x + scale·u(Δ), where
	// u is the optimizer's update (lr·Δ for SGD) and scale the algorithm's
	// server learning rate η_s of the round.
	Step(x, delta []float64, scale float64)
}

// ScalarStep is implemented by server optimizers whose step is one scalar
// times a direction (SGD, heavy-ball momentum), as opposed to adaptive ones
// that scale each coordinate. Algorithms whose server step ends with a prox
// (FedMiD) need it: the prox threshold is Rate()·η_s times the round's
// accumulated client step.
type ScalarStep interface {
	ServerOptimizer
	// Rate is the optimizer's learning rate lr.
	Rate() float64
}
