-- The FedAvg divergence example of the FedPD paper (Claim 2.2, App. C): two clients with
-- f₁(x) = ½x², f₂(x) = −½x², so f ≡ 0 and every point is stationary (‖∇f‖² is always 0).
-- K local GD steps of size η and averaging multiply x by ((1+η)^K + (1−η)^K)/2 every round,
-- which is > 1 for every K > 1: FedAvg diverges. FedPD with p = 0 stays bounded; with p > 0 it
-- is not covered by the theory here (δ = ∞) and diverges too.
--
-- The dataset centers both losses at w* = 1 and runs start from w₀ = 0, so the paper's |x^r|
-- (from x⁰ = 1) is l2_error = |w_r − w*|.
--
--   go run ./cmd/fedlab run scripts/fedpd_divergence.lua --out /tmp/fedpd_out      (0.04 s CPU, ≤ 1 s wall)

local problem = fedlab.problem{ data = fedlab.data.fedavg_counterexample{ curvature = 1, center = 1 },
  loss = fedlab.loss.quadratic{} }

local function dist(run, round)
  for _, rec in ipairs(run.records) do
    if rec.round == round then return rec.l2_error end
  end
end

print("FedAvg (η_s = 1, local GD), 50 rounds from |x⁰| = 1")
print(string.format("  %5s %3s  %-22s %-22s %-12s", "η", "K", "formula factor", "measured factor", "|x^50|"))
local fedavg, settings = {}, {}
for _, eta in ipairs({ 0.01, 0.1, 0.5 }) do
  for _, K in ipairs({ 1, 2, 8 }) do
    local run = fedlab.run{ problem = problem, rounds = 50, local_steps = K, batch = 0, eval_every = 1,
      metrics = { "l2_error", "stationarity" },
      algorithm = fedlab.algo.fedavg{ eta_c = eta, eta_s = 1, label = string.format("FedAvg η=%g K=%d", eta, K) } }
    table.insert(fedavg, run)
    settings[run.label] = { eta = eta, K = K }
    local formula = ((1 + eta) ^ K + (1 - eta) ^ K) / 2
    local worst = 0
    for r = 1, 50 do
      local f = dist(run, r) / dist(run, r - 1)
      worst = math.max(worst, math.abs(f - formula) / formula)
    end
    print(string.format("  %5g %3d  %-22.17g %-22.17g %-12.4g (max rel. deviation over 50 rounds %.1e; ‖∇f‖² = %g)",
      eta, K, formula, (dist(run, 50) / dist(run, 0)) ^ (1 / 50), dist(run, 50), worst, run.final.stationarity))
  end
end
fedlab.csv(fedavg, "fedpd_divergence_fedavg.csv")

-- Decreasing steps do not rescue FedAvg without bounded gradients (Claim D.2's point):
-- the paper's FedAvg-SGD schedule η/√(Kr + q + 1) still grows |x|.
local decay = fedlab.run{ problem = problem, rounds = 600, local_steps = 8, batch = 0, eval_every = 50,
  metrics = { "l2_error" }, algorithm = fedlab.algo.fedavg_decay{ eta_c = 0.5, power = 0.5, label = "FedAvg η=0.5/√(8r+q+1)" } }
print(string.format("\nFedAvg with η_{r,q} = 0.5/√(8r + q + 1), K = 8: |x| = %.4g at round 50, %.4g at 200, %.4g at 600",
  dist(decay, 50), dist(decay, 200), dist(decay, 600)))

-- FedPD on the same problem. "exact" solves the local AL to ‖∇L_i‖² ≤ 1e-28 (η₁ = η/(1+η),
-- K ≤ 200); "GD" is oracle I with K = 8, η₁ = 0.1.
print("\nFedPD, 600 rounds from |x⁰| = 1 (seeds 1, 2, 3 for p > 0)")
local pd = {}
local cases = {
  { "exact η=0.1 p=0", { eta = 0.1, eta1 = 0.1 / 1.1, eps1 = 1e-28 }, 200, { 1 } },
  { "exact η=0.3 p=0", { eta = 0.3, eta1 = 0.3 / 1.3, eps1 = 1e-28 }, 200, { 1 } },
  { "exact η=0.5 p=0", { eta = 0.5, eta1 = 0.5 / 1.5, eps1 = 1e-28 }, 200, { 1 } },
  { "GD η=0.3 p=0", { eta = 0.3, eta1 = 0.1 }, 8, { 1 } },
  { "GD η=0.3 p=0.5", { eta = 0.3, eta1 = 0.1, p = 0.5 }, 8, { 1, 2, 3 } },
  { "GD η=0.3 p=0.9", { eta = 0.3, eta1 = 0.1, p = 0.9 }, 8, { 1, 2, 3 } },
}
for _, c in ipairs(cases) do
  c[2].label = "FedPD " .. c[1]
  local runs = fedlab.compare{ problem = problem, rounds = 600, local_steps = c[3], batch = 0, eval_every = 50,
    seeds = c[4], metrics = { "l2_error", "comm_rounds" }, algorithms = { fedlab.algo.fedpd(c[2]) } }
  for _, run in ipairs(runs) do
    table.insert(pd, run)
    if run.status == "done" then
      print(string.format("  %-18s seed %d: |x| = %.6g at round 50, %.6g at 200, %.6g at 600 (%d communications)",
        c[1], run.seed, dist(run, 50), dist(run, 200), dist(run, 600), run.final.comm_rounds))
    else
      print(string.format("  %-18s seed %d: %s at round %s", c[1], run.seed, run.status, tostring(run.diverged_at)))
    end
  end
end
fedlab.csv(pd, "fedpd_divergence_fedpd.csv")

-- The paper's claims (docs/lua-api.md, "Claims").
fedlab.claim{ text = "FedAvg with local GD and a constant step multiplies x by ½[(1+η)^K + (1−η)^K] every round, so it diverges for every K > 1",
  source = "FedPD Claim 2.2, App. C", runs = fedavg, check = function(runs)
    local worst, n = 0, 0
    for _, run in ipairs(runs) do
      local eta, K = settings[run.label].eta, settings[run.label].K
      local formula = ((1 + eta) ^ K + (1 - eta) ^ K) / 2
      for r = 1, 50 do
        worst = math.max(worst, math.abs(dist(run, r) / dist(run, r - 1) - formula) / formula)
        n = n + 1
      end
    end
    return worst <= 1e-12, string.format("largest relative deviation of the per-round factor from the formula: %.2g (%d rounds of %d runs)", worst, n, #runs)
  end }
fedlab.claim{ text = "diminishing steps η/√(Kr + q + 1) do not rescue FedAvg: |x| still grows",
  source = "FedPD Claim D.2", runs = decay, label = "FedAvg η=0.5/√(8r+q+1)", metric = "l2_error", slope_at_least = 0, from = 50 }
for _, c in ipairs({ "exact η=0.1 p=0", "exact η=0.3 p=0", "exact η=0.5 p=0", "GD η=0.3 p=0" }) do
  fedlab.claim{ text = "FedPD with p = 0 stays bounded (" .. c .. ": |x| ≤ 2 in every round)", source = "FedPD Claim 2.2, App. C",
    runs = pd, label = "FedPD " .. c, metric = "l2_error", at_most = 2, from = 0 }
end
