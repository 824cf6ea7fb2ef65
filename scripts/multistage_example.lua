-- Multistage pipelines with fedlab.stages: each stage runs an algorithm (or the previous
-- stage's) with its own λ, constraint radius, rounds and local steps, restarted from the
-- previous stage (last model, weighted-average output, top-s sparsification, ...) with the
-- algorithm's state reset; rounds continue across stages. Run time: 1.5 s CPU.

local data = fedlab.data.sparse_ar1{ dim = 256, support = 32, clients = 32, samples = 64, test_samples = 0 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{ intercept = false },
  reg = fedlab.reg.l1{ lambda = 0.02 } }
local metrics = { "l2_error", "f1", "density" }

-- settings shared by every call below (a Lua table copied per call)
local function with(extra)
  local t = { problem = problem, clients_per_round = 8, local_steps = 10, batch = 8,
    init = "normal", init_scale = 1, eval_every = 20, seeds = { 1, 2 }, metrics = metrics }
  for k, v in pairs(extra) do t[k] = v end
  return t
end

-- 1. MC-FedDA (Bao et al. 2022, Alg. 3) written as C-FedDA stages: λ_m = λ_0·2^−m, an ℓ1 ball
--    of radius ∝ λ_m around each stage's start, restart at the stage's weighted-average output.
local cfedda = fedlab.algo.cfedda{ mu = 0.1, L = 300, weights = "constant" }
local lambda0, radius0, stages = 0.08, 400, { 100, 100, 400 }
local spec = with{ label = "MC-FedDA (stages)", restart = "average" }
for m, rounds in ipairs(stages) do
  local lambda = lambda0 * 0.5 ^ (m - 1)
  spec[m] = { lambda = lambda, radius = radius0 * lambda / lambda0, rounds = rounds }
end
spec[1].algo = cfedda
local mc_stages = fedlab.stages(spec)

-- 2. The same pipeline ready-made: the registered algorithm mcfedda. Its records match the
--    composed pipeline's model for model (the objective differs: fedlab.stages measures each
--    stage's own λ, mcfedda the problem's).
local runs = fedlab.compare(with{ rounds = 600, algorithms = {
  fedlab.algo.mcfedda{ mu = 0.1, L = 300, weights = "constant", lambda0 = lambda0, radius0 = radius0,
    stage_rounds = { 100, 100 }, label = "MC-FedDA (algorithm)" },
  fedlab.algo.cfedda{ mu = 0.1, L = 300, weights = "constant", label = "C-FedDA" },
} })

-- 3. A mixed pipeline: a FedDualAvg warm-up at a large λ, then Fast-FedDA restarted from the
--    top-32 sparsification of the warm-up's model, then more local steps at the target λ
--    (a λ may also be a schedule or a Lua function of the global round).
local mixed = fedlab.stages(with{ label = "FedDualAvg → Fast-FedDA (top-32)",
  { algo = fedlab.algo.feddualavg{ eta_c = 0.002 }, lambda = 0.08, rounds = 200 },
  { algo = fedlab.algo.fastfedda{ mu = 0.1, L = 300, weights = "constant" }, restart = "top", keep = 32,
    lambda = function(r) return math.max(0.02, 0.04 * 0.5 ^ math.floor((r - 200) / 100)) end, rounds = 200 },
  { restart = "last", local_steps = 20, rounds = 200 },
})

fedlab.table({ mc_stages, runs, mixed }, { rounds = { 0, 40, 100, 200, 300, 400, 600 },
  metrics = { "stage", "l2_error", "f1", "density" }, transpose = true })
fedlab.csv({ mc_stages, mixed }, "multistage.csv")   -- with a "stage" column
for i, st in ipairs(mixed[1].stages) do
  print(string.format("stage %d: %s from round %d for %d rounds, λ = %g, restart = %s",
    i, st.algorithm, st.start, st.rounds, st.lambda, st.restart))
end
