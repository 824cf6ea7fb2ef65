-- System-realism ablations on Fashion-MNIST, multinomial logistic regression with ψ = λ‖W‖₁
-- (kernel only), λ = 0.001: FedDualAvg vs FedMiD vs FedAvg under dropout and under top-1% uplink
-- compression with and without error feedback. 100 clients (Dirichlet α = 0.5 label split),
-- 10 per round, 5 local steps of batch 16, 200 rounds, seeds 1–2, a 12000-sample training subset
-- and a 2000-sample test subset (to keep the script at a few minutes). η_c = 0.1, η_s = 1 for
-- all three methods (FedDualAvg-L1's step sizes in scripts/fedda_fmnist_l1.lua).
-- Client-level DP (clip C = 0.5, server Gaussian noise σ·C, δ = 1e-5): test accuracy against
-- the ε spent, σ ∈ {0.5, 1, 2}, same 10 of 100 clients per round (docs/realism.md).
--   apt-get install dataset-fashion-mnist
--   nice -n 10 go run ./cmd/fedlab run scripts/realism_fmnist.lua --out runs/realism_fmnist   (~7 min)
local data = fedlab.data.fashion_mnist{ clients = 100, partition = "dirichlet", alpha = 0.5,
  train_samples = 12000, test_samples = 2000 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.multinomial{}, reg = fedlab.reg.l1{ lambda = 0.001 } }
local names = { "FedDualAvg", "FedMiD", "FedAvg" }
local function algorithms(suffix)
  return {
    fedlab.algo.feddualavg{ eta_c = 0.1, eta_s = 1, label = "FedDualAvg" .. suffix },
    fedlab.algo.fedmid{ eta_c = 0.1, eta_s = 1, label = "FedMiD" .. suffix },
    fedlab.algo.fedavg{ eta_c = 0.1, eta_s = 1, label = "FedAvg" .. suffix },
  }
end
local function call(extra, suffix)
  local t = { problem = problem, rounds = 200, clients_per_round = 10, local_steps = 5, batch = 16,
    seeds = { 1, 2 }, eval_every = 20, metrics = { "objective", "test_accuracy", "density", "bits_up" },
    algorithms = algorithms(suffix) }
  for k, v in pairs(extra) do t[k] = v end
  return fedlab.compare(t)
end
local function final(runs, label, metric)
  local sum, n = 0, 0
  for _, run in ipairs(runs) do
    if run.label == label then
      if run.status ~= "done" then return run.status end
      sum, n = sum + run.records[#run.records][metric], n + 1
    end
  end
  return sum / n
end
local function markdown(title, settings, results, metric, fmt)
  print("\n" .. title .. "\n")
  local head, rule = "| algorithm |", "|---|"
  for _, s in ipairs(settings) do head, rule = head .. " " .. s.name .. " |", rule .. "---:|" end
  print(head) print(rule)
  for _, a in ipairs(names) do
    local row = "| " .. a .. " |"
    for i, s in ipairs(settings) do
      local v = final(results[i], a .. s.suffix, metric)
      row = row .. " " .. (type(v) == "number" and string.format(fmt, v) or v) .. " |"
    end
    print(row)
  end
end

local settings = {
  { name = "none", suffix = "", extra = {} },
  { name = "dropout 0.3", suffix = " p=0.3", extra = { availability = fedlab.availability.dropout{ p = 0.3 } } },
  { name = "dropout 0.5", suffix = " p=0.5", extra = { availability = fedlab.availability.dropout{ p = 0.5 } } },
  { name = "top-1%", suffix = " top1%", extra = { compress_up = fedlab.compressor.top_k{ fraction = 0.01 } } },
  { name = "top-1% + EF", suffix = " top1%+EF",
    extra = { compress_up = fedlab.compressor.top_k{ fraction = 0.01, error_feedback = true } } },
}
local results, all = {}, {}
for i, s in ipairs(settings) do
  results[i] = call(s.extra, s.suffix)
  for _, r in ipairs(results[i]) do all[#all + 1] = r end
end
markdown("Fashion-MNIST, ℓ1-logistic: test accuracy after 200 rounds (mean of 2 seeds)", settings, results, "test_accuracy", "%.4f")
markdown("Fashion-MNIST, ℓ1-logistic: objective after 200 rounds", settings, results, "objective", "%.4f")
markdown("Fashion-MNIST, ℓ1-logistic: kernel density (|w| > 0.01) after 200 rounds", settings, results, "density", "%.3f")
markdown("Fashion-MNIST, ℓ1-logistic: bits sent up in 200 rounds", settings, results, "bits_up", "%.3g")
local shown = {}
for _, i in ipairs({ 4, 5 }) do for _, r in ipairs(results[i]) do shown[#shown + 1] = r end end
fedlab.plot(shown, { metric = "test_accuracy", x = "bits_up",
  file = "realism_fmnist_topk", title = "Fashion-MNIST ℓ1-logistic, top-1% uplink: test accuracy against bits sent up" })

local dps = { { name = "no DP", suffix = "", extra = {} } }
for _, sigma in ipairs({ 0.5, 1, 2 }) do
  dps[#dps + 1] = { name = "σ = " .. sigma, suffix = " σ=" .. sigma,
    extra = { privacy = fedlab.privacy.gaussian{ clip = 0.5, noise = sigma, delta = 1e-5 },
      metrics = { "objective", "test_accuracy", "density", "bits_up", "epsilon" } } }
end
local dpResults, dpShown = { results[1] }, {}
for i = 2, #dps do
  dpResults[i] = call(dps[i].extra, dps[i].suffix)
  for _, r in ipairs(dpResults[i]) do all[#all + 1] = r; dpShown[#dpShown + 1] = r end
end
markdown("Client-level DP, C = 0.5, δ = 1e-5: ε after 200 rounds", { dps[2], dps[3], dps[4] },
  { dpResults[2], dpResults[3], dpResults[4] }, "epsilon", "%.3g")
markdown("Client-level DP: test accuracy after 200 rounds (mean of 2 seeds)", dps, dpResults, "test_accuracy", "%.4f")
fedlab.plot(dpShown, { metric = "test_accuracy", x = "epsilon",
  file = "realism_fmnist_dp", title = "Fashion-MNIST ℓ1-logistic, client-level DP (C = 0.5): test accuracy against ε" })
fedlab.csv(all, "realism_fmnist.csv")
