-- Bao, Crawshaw, Luo & Liu (ICML 2022), Fig. 1: federated sparse linear regression.
-- 64 clients × 128 samples, p = 1024, s = 512, x = δ_k + z with z ~ N(0, Σ), Σ_ij = 0.5^|i−j|,
-- y = xᵀw* + ε, w* = (1_512, 0); loss (1/2N)Σ(y − xᵀw)² + λ‖w‖₁ with λ = 0.5⁵ (no intercept).
-- 10 clients per round, 10 local steps of batch 10, 2000 rounds (the authors' code), a random
-- N(0, I) start shared by all methods (the authors' code), hyperparameters of App. F.
-- See docs/reproductions.md (Bao et al.). Run time: 55 s CPU, 32 s wall on 2 idle cores (table "Run times" in docs/reproductions.md).

local data = fedlab.data.sparse_ar1{ dim = 1024, support = 512, clients = 64, samples = 128,
  rho = 0.5, test_samples = 0, seed = 1 }
local problem = fedlab.problem{ data = data,
  loss = fedlab.loss.squared{ half = true, intercept = false },
  reg = fedlab.reg.l1{ lambda = 0.5^5 } }

local metrics = { "l2_error", "l1_error", fedlab.metric.f1{ threshold = 0.01 }, "train_loss" }

-- the proposed methods run the authors' constant weights (α ≡ 1, anchor γ = L): App. F's L is
-- that constant. MC-FedDA: stages λ = 0.5³, 0.5⁴, 0.5⁵ of 250, 250 and 1500 rounds, ℓ1 radii
-- 5000, 2500, 1250 around each stage's start (never active, as in the authors' code).
local algorithms = {
  fedlab.algo.fastfedda{ mu = 0.1, L = 550, weights = "constant", label = "Fast-FedDA" },
  fedlab.algo.cfedda{ mu = 0.1, L = 600, weights = "constant", label = "C-FedDA" },
  fedlab.algo.mcfedda{ mu = 0.1, L = 600, weights = "constant", lambda0 = 0.5^3,
    stage_rounds = { 250, 250 }, radius0 = 5000, restart = "average", label = "MC-FedDA" },
  fedlab.algo.mcfedda{ mu = 0.1, L = 600, weights = "constant", lambda0 = 0.5^3,
    stage_rounds = { 250, 250 }, radius0 = 5000, restart = "last", label = "MC-FedDA (last)" },
  fedlab.algo.feddualavg{ eta_c = 0.001, eta_s = 1, label = "FedDualAvg" },
  fedlab.algo.fedmid{ eta_c = 0.001, eta_s = 1, label = "FedMiD" },
}

local runs = fedlab.compare{ problem = problem, algorithms = algorithms, seeds = { 1, 2, 3 },
  rounds = 2000, clients_per_round = 10, local_steps = 10, batch = 10,
  init = "normal", init_scale = 1, eval_every = 10, metrics = metrics }

fedlab.table(runs, { rounds = { 0, 50, 100, 250, 300, 500, 1000, 2000 }, transpose = true,
  title = "Fig. 1: federated LASSO, λ = 0.5^5" })
fedlab.csv(runs, "bao_lasso.csv")
for _, m in ipairs({ "l2_error", "l1_error", "f1", "train_loss" }) do
  fedlab.plot(runs, { metric = m, log = (m ~= "f1"), file = "bao_lasso_" .. m })
end

-- The paper's claims (Fig. 1 caption and Sec. 4; docs/lua-api.md, "Claims"), on the mean over
-- seeds; MC-FedDA with the authors' last-iterate restart.
local proposed, baselines = { "Fast-FedDA", "C-FedDA", "MC-FedDA (last)" }, { "FedDualAvg", "FedMiD" }
for _, m in ipairs({ "l2_error", "l1_error", "train_loss", "f1" }) do
  fedlab.claim{ text = "the three proposed algorithms converge faster than FedDualAvg and FedMiD in " .. m ..
      " (better at every evaluated round from 10 to 1000)", source = "Bao et al. Fig. 1",
    runs = runs, metric = m, order = { proposed, baselines }, direction = m == "f1" and "decreasing" or "increasing",
    from = 10, to = 1000, seeds = "mean" }
end
fedlab.claim{ text = "the F1 score of MC-FedDA already reaches 1 after the first stage (F1 ≥ 0.99 at round 250)",
  source = "Bao et al. Sec. 4", runs = runs, label = "MC-FedDA (last)", metric = "f1", at_least = 0.99, at = 250 }
fedlab.claim{ text = "except FedMiD, the methods nearly achieve perfect support recovery: FedMiD does not (F1 < 0.99 at round 2000)",
  source = "Bao et al. Sec. 4", runs = runs, label = "FedMiD", metric = "f1", at_most = 0.99, at = 2000 }
fedlab.claim{ text = "MC-FedDA converges to the same values as the others (ℓ2 error at round 2000 within 5 % of FedDualAvg's)",
  source = "Bao et al. Sec. 4", runs = runs, label = "MC-FedDA", metric = "l2_error", at = 2000,
  equals = { label = "FedDualAvg", metric = "l2_error", at = 2000 }, tol = 0.05, relative = true, seeds = "mean" }
