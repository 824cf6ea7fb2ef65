-- Homotopy (continuation) within a single run: λ decreases over the rounds by a schedule or
-- a Lua function of the round, for any algorithm; no restart, the algorithm's state is kept.
-- Compared with the same algorithms at the fixed target λ. Run time: 1.4 s CPU.

local data = fedlab.data.sparse_ar1{ dim = 256, support = 32, clients = 32, samples = 64, test_samples = 0 }
local target = 0.02

local function problem(lambda)
  return fedlab.problem{ data = data, loss = fedlab.loss.squared{ intercept = false },
    reg = fedlab.reg.l1{ lambda = lambda } }
end

local settings = function(p)
  return { problem = p, rounds = 600, clients_per_round = 8, local_steps = 10, batch = 8,
    init = "normal", init_scale = 1, eval_every = 20, seeds = { 1, 2 },
    metrics = { "l2_error", "f1", "density", "objective" } }
end

local function algorithms(suffix)
  return {
    fedlab.algo.feddualavg{ eta_c = 0.002, label = "FedDualAvg" .. suffix },
    fedlab.algo.fastfedda{ mu = 0.1, L = 300, weights = "constant", label = "Fast-FedDA" .. suffix },
  }
end

-- fixed λ = target
local s = settings(problem(target))
s.algorithms = algorithms("")
local fixed = fedlab.compare(s)

-- geometric homotopy: λ = 0.16·0.5^⌊r/100⌋, never below the target (0.16, 0.08, 0.04, 0.02, ...)
s = settings(problem(fedlab.schedule.geometric{ start = 8 * target, factor = 0.5, every = 100, floor = target }))
s.algorithms = algorithms(" homotopy")
local geometric = fedlab.compare(s)

-- the same decrease as a Lua function of the round (r is 0-based)
s = settings(problem(function(r) return math.max(target, 8 * target * 0.5 ^ math.floor(r / 100)) end))
s.algorithms = { fedlab.algo.fastfedda{ mu = 0.1, L = 300, weights = "constant", label = "Fast-FedDA homotopy (function)" } }
local fn = fedlab.compare(s)

-- the objective column is measured at each run's current λ; l2_error, f1 and density compare
fedlab.table({ fixed, geometric, fn }, { rounds = { 0, 100, 200, 300, 400, 600 },
  metrics = { "l2_error", "f1", "density" }, transpose = true,
  title = "homotopy: λ from 8·target down to target = 0.02 vs fixed λ = target" })
