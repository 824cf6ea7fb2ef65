-- fedlab quickstart: FedDualAvg, FedMiD and FedAvg on a small federated LASSO.
--   go run ./cmd/fedlab run scripts/quickstart.lua
-- Data: the FCO paper's generator (x = μ_m + δ, y = xᵀw* + b + ε) at a small size:
-- 20 clients × 50 samples, d = 200, 10 true nonzeros.
local data = fedlab.data.lasso{ variant = "custom", dim = 200, support = 10,
                                clients = 20, samples = 50, test_samples = 20, seed = 1 }

local problem = fedlab.problem{
  data = data,
  loss = fedlab.loss.squared{ half = false },   -- mean squared error, as in the paper
  reg  = fedlab.reg.l1{ lambda = 0.1 },
}

local opt = fedlab.optimum(problem)              -- FISTA on the pooled data
print(string.format("centralized optimum: objective %.6f (%d FISTA iterations)", opt.objective, opt.iters))

local runs = fedlab.compare{
  problem = problem, rounds = 200, clients_per_round = 5, batch = 10, epochs = 1,
  seeds = { 1, 2, 3 }, eval_every = 10,
  algorithms = {
    fedlab.algo.feddualavg{ eta_c = 0.003, eta_s = 1, label = "FedDualAvg" },
    fedlab.algo.fedmid{     eta_c = 0.003, eta_s = 1, label = "FedMiD" },
    fedlab.algo.fedavg{     eta_c = 0.003, eta_s = 1, label = "FedAvg" },
  },
  metrics = { "opt_gap", "f1", "density", "l2_error", "test_loss" },
}

fedlab.table(runs, { rounds = { 0, 20, 50, 100, 200 }, title = "federated LASSO" })
print("records written to " .. fedlab.csv(runs, "quickstart.csv"))
