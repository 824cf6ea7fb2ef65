-- The Lua counterpart of examples/goplan/main.go: the same problem, comparison,
-- sweep and pipeline. Both give the same runs (run keys) and records.
--
--   fedlab run examples/goplan/goplan.lua --out runs/goplan-lua

local data = fedlab.data.sparse_ar1{ dim = 64, support = 8, clients = 8, samples = 40, test_samples = 0 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{ intercept = false },
  reg = fedlab.reg.l1{ lambda = 0.02 } }
local settings = { rounds = 60, clients_per_round = 4, local_steps = 5, batch = 8, eval_every = 20,
  init = "normal", init_scale = 1 }
local metrics = { "l2_error", "f1", "objective" }
local fda = fedlab.algo.feddualavg{ eta_c = 0.002, label = "FedDualAvg" }

local function with(t)
  t.problem, t.metrics, t.seeds = problem, metrics, { 1, 2 }
  for k, v in pairs(settings) do t[k] = v end
  return t
end

local runs = fedlab.compare(with{ algorithms = { fedlab.algo.fedmid{ eta_c = 0.002 }, fda } })
fedlab.table(runs, { title = "FedMiD vs FedDualAvg" })

local sweep = fedlab.sweep(with{ algorithms = { fda }, grid = { eta_c = { 0.001, 0.002, 0.004 } },
  select = { metric = "objective", mode = "min", last = 20 } })
fedlab.table(sweep.best[1].runs, { title = "FedDualAvg, the step size selected" })

local stages = with{ label = "C-FedDA stages", restart = "average",
  { algo = fedlab.algo.cfedda{ mu = 0.1, L = 300, weights = "constant" }, lambda = 0.04, rounds = 30 },
  { lambda = 0.02, rounds = 30 } }
stages.rounds = nil
fedlab.table(fedlab.stages(stages), { title = "two C-FedDA stages" })
