-- Bao, Crawshaw, Luo & Liu (ICML 2022), Fig. 2: federated low-rank matrix estimation.
-- 64 clients × 128 samples of 32×32 matrices X = Z_k + A (a different Gaussian shift Z_k per
-- client; the authors' code shares one), y = ⟨X, W*⟩ + ε with W* = diag(1_16, 0), rank 16;
-- loss (1/2N)Σ(y − ⟨X, W⟩)² + λ‖W‖_* with λ = 0.1 (no intercept). 10 clients per round,
-- 10 local steps of batch 10, random N(0, I) start. 1000 rounds instead of the authors' 1500
-- (every method has nearly converged by then; scripts/bao_lowrank_1500.lua runs 1500).
-- Run time: 2.5 min (table "Run times" in docs/reproductions.md; SVDs dominate).

local data = fedlab.data.lowrank_shift{ size = 32, rank = 16, clients = 64, samples = 128,
  test_samples = 0, seed = 1 }
local problem = fedlab.problem{ data = data,
  loss = fedlab.loss.trace{ half = true, intercept = false },
  reg = fedlab.reg.nuclear{ lambda = 0.1 } }

-- rank as MATLAB's rank() would count it (singular values above a tiny tolerance)
local metrics = { "fro_error", "op_error", fedlab.metric.rank{ threshold = 1e-8 }, "train_loss" }

-- MC-FedDA: stages λ = 0.3, 0.15, 0.1 (λ_0 = 0.3 halved, floored at the problem's λ = 0.1) of
-- 250, 250 and 500 rounds; nuclear-norm radii ε_m = 5000·λ_m/0.3 (never active); restarted at
-- each stage's weighted-average output (Alg. 3) or at its last iterate (the authors' code).
local algorithms = {
  fedlab.algo.fastfedda{ mu = 0.1, L = 550, weights = "constant", label = "Fast-FedDA" },
  fedlab.algo.cfedda{ mu = 0.1, L = 600, weights = "constant", label = "C-FedDA" },
  fedlab.algo.mcfedda{ mu = 0.1, L = 600, weights = "constant", lambda0 = 0.3,
    stage_rounds = { 250, 250 }, radius0 = 5000, restart = "average", label = "MC-FedDA" },
  fedlab.algo.mcfedda{ mu = 0.1, L = 600, weights = "constant", lambda0 = 0.3,
    stage_rounds = { 250, 250 }, radius0 = 5000, restart = "last", label = "MC-FedDA (last)" },
  fedlab.algo.feddualavg{ eta_c = 0.001, eta_s = 1, label = "FedDualAvg" },
  fedlab.algo.fedmid{ eta_c = 0.001, eta_s = 1, label = "FedMiD" },
}

local runs = fedlab.compare{ problem = problem, algorithms = algorithms, seeds = { 1, 2 },
  rounds = 1000, clients_per_round = 10, local_steps = 10, batch = 10,
  init = "normal", init_scale = 1, eval_every = 25, metrics = metrics }

fedlab.table(runs, { rounds = { 0, 50, 100, 250, 300, 500, 750, 1000 }, transpose = true,
  title = "Fig. 2: federated low-rank estimation, λ = 0.1" })
fedlab.csv(runs, "bao_lowrank.csv")
for _, m in ipairs({ "fro_error", "op_error", "rank", "train_loss" }) do
  fedlab.plot(runs, { metric = m, log = (m ~= "rank"), file = "bao_lowrank_" .. m })
end

-- The paper's claims (Fig. 2 caption; docs/lua-api.md, "Claims"); MC-FedDA with the authors'
-- last-iterate restart stands for the proposed multistage method.
for _, label in ipairs({ "Fast-FedDA", "C-FedDA", "MC-FedDA", "MC-FedDA (last)", "FedDualAvg" }) do
  fedlab.claim{ text = "except FedMiD, the methods all recover the true rank of W* (" .. label .. ": rank 16 at round 1000)",
    source = "Bao et al. Fig. 2", runs = runs, label = label, metric = "rank", at_most = 16, at = 1000 }
end
fedlab.claim{ text = "FedMiD does not recover the true rank of W* (rank > 16 at round 1000)", source = "Bao et al. Fig. 2",
  runs = runs, label = "FedMiD", metric = "rank", at_least = 17, at = 1000 }
for _, m in ipairs({ "fro_error", "op_error", "train_loss" }) do
  fedlab.claim{ text = "the proposed three methods show faster convergence than the two baselines in " .. m .. " (lower at every evaluated round)",
    source = "Bao et al. Fig. 2", runs = runs, metric = m, order = { { "Fast-FedDA", "C-FedDA", "MC-FedDA (last)" }, { "FedDualAvg", "FedMiD" } },
    direction = "increasing", throughout = true, seeds = "mean" }
end
