-- A sparse federated problem at scale: 10,000 clients, d = 2^20 features, 10^6 nonzeros in
-- total (10 samples × 10 nonzeros per client), an s = 20 sparse truth; least squares with ℓ1.
-- 500 rounds of FedDualAvg, 10 clients per round, 10 local steps of batch 5. Client steps are
-- lazy (O(nnz), see docs/sparse.md) and client scratch is per worker, so memory is the data,
-- the server state and one reply per sampled client.
--   /usr/bin/time -v fedlab run scripts/sparse_10k_clients.lua --workers 2
-- Measured in docs/performance.md ("Sparse data at scale").
local data = fedlab.data.sparse_federated{ dim = 2^20, support = 20, clients = 10000, samples = 10,
  nnz = 10, exponent = 1.1, noise = 0.1, seed = 1 }
local problem = fedlab.problem{ data = data,
  loss = fedlab.loss.squared{ half = true, intercept = false },
  reg = fedlab.reg.l1{ lambda = 1e-3 } }

local runs = fedlab.run{ problem = problem,
  algorithm = fedlab.algo.feddualavg{ eta_c = 0.05, eta_s = 1, label = "FedDualAvg" },
  rounds = 500, clients_per_round = 10, local_steps = 10, batch = 5, seed = 1, eval_every = 100,
  metrics = { "train_loss", "l2_error", "density" } }

fedlab.table(runs, { rounds = { 0, 100, 200, 300, 400, 500 },
  title = "10,000 clients, d = 2^20, 10^6 nonzeros: FedDualAvg with l1" })
