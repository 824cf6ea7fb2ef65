-- System-realism ablations on the FCO federated LASSO (Yuan, Zaheer & Reddi, ICML 2021):
-- FedDualAvg vs FedMiD vs FedAvg under
--   (1) dropout of 10–50% of the sampled clients, and stragglers (partial local work),
--   (2) top-1% uplink compression with and without error feedback (and QSGD),
--   (3) client-level differential privacy (clipping + Gaussian noise at the server), objective vs ε.
-- See docs/realism.md for the semantics and the guarantees.
--
-- Step sizes: (η_c, η_s) = (0.001, 1) for FedDualAvg and (0.001, 0.3) for FedMiD and FedAvg (the
-- paper's setting for the non-FedDualAvg methods; FedDualAvg at (0.001, 10), the best of
-- scripts/fco_lasso_sweep.lua with 10 clients per round, diverges with 7 or fewer clients per round).
--
-- Usage: nice -n 10 go run ./cmd/fedlab run scripts/realism_lasso.lua --out runs/realism_lasso
--        (about 5 minutes on 2 shared cores)

local seeds = { 1, 2, 3 }
local function algorithms(suffix)
  return {
    fedlab.algo.feddualavg{ eta_c = 0.001, eta_s = 1, label = "FedDualAvg" .. suffix },
    fedlab.algo.fedmid{ eta_c = 0.001, eta_s = 0.3, label = "FedMiD" .. suffix },
    fedlab.algo.fedavg{ eta_c = 0.001, eta_s = 0.3, label = "FedAvg" .. suffix },
  }
end
local names = { "FedDualAvg", "FedMiD", "FedAvg" }

local function lasso(variant)
  return fedlab.problem{ data = fedlab.data.lasso{ variant = variant, seed = 1 },
    loss = fedlab.loss.squared{ half = false, intercept = true }, reg = fedlab.reg.l1{ lambda = 0.3 } }
end

-- mean over the seeds of metric at the last record of the runs labelled label
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

local function cell(v)
  if type(v) ~= "number" then return v end
  if v ~= v then return "–" end
  if math.abs(v) >= 1e5 then return string.format("%.3g", v) end
  if math.abs(v) >= 100 then return string.format("%.1f", v) end
  return string.format("%.4g", v)
end

-- prints a markdown table: one row per algorithm, one column per setting
local function markdown(title, settings, results, metric)
  print("\n" .. title .. "\n")
  local head, rule = "| algorithm |", "|---|"
  for _, s in ipairs(settings) do head, rule = head .. " " .. s.name .. " |", rule .. "---:|" end
  print(head) print(rule)
  for _, a in ipairs(names) do
    local row = "| " .. a .. " |"
    for i, s in ipairs(settings) do row = row .. " " .. cell(final(results[i], a .. s.suffix, metric)) .. " |" end
    print(row)
  end
end

local function concat(lists)
  local out = {}
  for _, l in ipairs(lists) do for _, r in ipairs(l) do out[#out + 1] = r end end
  return out
end

-- the runs of lists whose label starts with prefix
local function only(lists, prefix)
  local out = {}
  for _, l in ipairs(lists) do
    for _, r in ipairs(l) do
      if r.label:sub(1, #prefix) == prefix then out[#out + 1] = r end
    end
  end
  return out
end

local metrics = { "objective", "f1", "bits_up", "bits_down", "epsilon" }
local I = lasso("I")
print(string.format("LASSO (I), λ = 0.3: centralized optimum Φ* = %.6g", fedlab.optimum(I).objective))
local base = { problem = I, rounds = 300, clients_per_round = 10, batch = 10, epochs = 1, seeds = seeds,
  eval_every = 10, metrics = metrics }
local function call(extra, suffix)
  local t = {}
  for k, v in pairs(base) do t[k] = v end
  for k, v in pairs(extra) do t[k] = v end
  t.algorithms = algorithms(suffix)
  return fedlab.compare(t)
end

-- (1) dropout and stragglers -------------------------------------------------------------------
local drops = {
  { name = "p = 0", suffix = "", extra = {} },
  { name = "p = 0.1", suffix = " p=0.1", extra = { availability = fedlab.availability.dropout{ p = 0.1 } } },
  { name = "p = 0.3", suffix = " p=0.3", extra = { availability = fedlab.availability.dropout{ p = 0.3 } } },
  { name = "p = 0.5", suffix = " p=0.5", extra = { availability = fedlab.availability.dropout{ p = 0.5 } } },
  { name = "Markov (25% off)", suffix = " markov",
    extra = { availability = fedlab.availability.markov{ p_off = 0.1, p_on = 0.3 } } },
  { name = "uniform K_m", suffix = " uniform", extra = { availability = fedlab.availability.uniform_fraction{ min = 0.1 } } },
  { name = "Pareto K_m", suffix = " pareto", extra = { availability = fedlab.availability.pareto{ alpha = 1 } } },
}
local dropRuns = {}
for i, s in ipairs(drops) do dropRuns[i] = call(s.extra, s.suffix) end
markdown("Dropout and stragglers, LASSO (I): objective after 300 rounds (mean of 3 seeds)", drops, dropRuns, "objective")
markdown("Dropout and stragglers, LASSO (I): support F1 after 300 rounds", drops, dropRuns, "f1")
fedlab.plot(concat({ dropRuns[1], dropRuns[4] }), { metric = "objective", log = true, file = "realism_lasso_dropout",
  title = "LASSO (I): no dropout vs 50% dropout" })

-- (2) uplink compression ------------------------------------------------------------------------
local comps = {
  { name = "none", suffix = "", runs = dropRuns[1] },
  { name = "top-1%", suffix = " top1%", extra = { compress_up = fedlab.compressor.top_k{ fraction = 0.01 } } },
  { name = "top-1% + EF", suffix = " top1%+EF",
    extra = { compress_up = fedlab.compressor.top_k{ fraction = 0.01, error_feedback = true } } },
  { name = "QSGD s=4", suffix = " qsgd4", extra = { compress_up = fedlab.compressor.qsgd{ levels = 4 } } },
  { name = "sign + EF", suffix = " sign+EF", extra = { compress_up = fedlab.compressor.sign{ error_feedback = true } } },
}
local compRuns = {}
for i, s in ipairs(comps) do compRuns[i] = s.runs or call(s.extra, s.suffix) end
markdown("Uplink compression, LASSO (I): objective after 300 rounds", comps, compRuns, "objective")
markdown("Uplink compression, LASSO (I): support F1 after 300 rounds", comps, compRuns, "f1")
markdown("Uplink compression, LASSO (I): bits sent up in 300 rounds", comps, compRuns, "bits_up")
fedlab.plot(concat({ compRuns[2], compRuns[3] }), { metric = "objective", x = "bits_up", log = true,
  file = "realism_lasso_topk", title = "LASSO (I): top-1% uplink, objective against bits sent up" })

-- (3) client-level differential privacy -------------------------------------------------------------
-- LASSO (IV): 256 clients, 64 per round (q = 1/4). Clip C = 1; noise multipliers σ.
local IV = lasso("IV")
print(string.format("\nLASSO (IV), λ = 0.3: centralized optimum Φ* = %.6g", fedlab.optimum(IV).objective))
local dps = { { name = "no DP", suffix = "", sigma = nil }, { name = "σ = 0.7", suffix = " σ=0.7", sigma = 0.7 },
  { name = "σ = 1", suffix = " σ=1", sigma = 1 }, { name = "σ = 2", suffix = " σ=2", sigma = 2 },
  { name = "σ = 4", suffix = " σ=4", sigma = 4 } }
local dpRuns = {}
for i, s in ipairs(dps) do
  dpRuns[i] = fedlab.compare{ problem = IV, rounds = 200, clients_per_round = 64, batch = 10, epochs = 1,
    seeds = { 1, 2 }, eval_every = 10, metrics = metrics, algorithms = algorithms(s.suffix),
    privacy = s.sigma and fedlab.privacy.gaussian{ clip = 1, noise = s.sigma, delta = 1e-5 } or nil }
end
markdown("Client-level DP, LASSO (IV), C = 1, δ = 1e-5: ε after 200 rounds", dps, dpRuns, "epsilon")
markdown("Client-level DP, LASSO (IV): objective after 200 rounds (mean of 2 seeds)", dps, dpRuns, "objective")
markdown("Client-level DP, LASSO (IV): support F1 after 200 rounds", dps, dpRuns, "f1")
for _, a in ipairs({ "FedDualAvg", "FedMiD" }) do
  fedlab.plot(only({ dpRuns[2], dpRuns[3], dpRuns[4], dpRuns[5] }, a), { metric = "objective", x = "epsilon", log = true,
    file = "realism_lasso_dp_" .. a, title = "LASSO (IV), " .. a .. ": objective as privacy is spent (C = 1)" })
end
fedlab.csv(concat({ concat(dropRuns), compRuns[2], compRuns[3], compRuns[4], compRuns[5], concat(dpRuns) }),
  "realism_lasso.csv")
