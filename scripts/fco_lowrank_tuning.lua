-- Per-task learning-rate tuning of the low-rank matrix estimation experiments (I)–(IV) of
-- Yuan, Zaheer & Reddi, "Federated Composite Optimization" (ICML 2021), Sec. 5.2 / App. B.3,
-- as the paper did it (scripts/fco_lowrank.lua borrows the LASSO (I) step sizes instead).
--
--   min_{W ∈ R^{32×32}, b} (1/M) Σ_m E (⟨X, W⟩ + b − y)² + λ‖W‖_*     (plain MSE, λ = 0.3)
--
-- Grid (App. B.3; the printed η_s list is garbled, read as the LASSO one):
--   η_c ∈ {0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1} × η_s ∈ {0.01, 0.03, 0.1, 0.3, 1, 3, 10},
-- for FedDualAvg, FedDualAvg-OSP, FedMiD and FedMiD-OSP on each of (I)–(IV), 500 rounds, seed 1.
-- Selection: the paper's rule, the smallest recovery error ‖W − W*‖_F averaged over the last
-- 100 rounds (App. B.3: "tuned to achieve the best averaged recovery error on the last 100
-- communication rounds"); ties by the validation MSE. The same runs are also ranked by the
-- validation MSE (mean over the last 100 rounds) and that choice is printed beside it.
-- Validation MSE = `test_loss` on the held-out set the generator draws by default: 32 samples
-- per client from the client's own distribution (own random stream per client), never trained on.
-- Differences from the paper: one seed in the tuning (the paper does not say how many);
-- diverged configurations (NaN/Inf) stop early and are never selected.
-- The selected configuration of each algorithm is then run with seeds {1, 2, 3} (seed 1 reused
-- from the sweep): a table per task (rank, ‖W − W*‖_F, objective, optimality gap, validation
-- MSE at rounds 0/50/100/200/500), CSVs, and a figure per task with the centralized optimum Φ*
-- (`fedlab.optimum`, FISTA on the pooled data) drawn as a horizontal line.
--
-- Run time: 16.9 min wall, 27.5 min CPU (2 cores, otherwise idle machine, --jobs 1; 816 runs, 660
-- of them diverge, most within 60 rounds; peak memory 1.1 GB). Results: docs/reproductions.md, "Low-rank step
-- sizes tuned per task".
-- Usage: nice -n 10 go run ./cmd/fedlab run scripts/fco_lowrank_tuning.lua --jobs 1 [--out DIR]

local variants = { "I", "II", "III", "IV" }
local rank_of = { I = 16, II = 4, III = 1, IV = 16 }
local lambda = 0.3
local labels = { "FedDualAvg", "FedDualAvg-OSP", "FedMiD", "FedMiD-OSP" }
local grid = { eta_c = { 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1 },
               eta_s = { 0.01, 0.03, 0.1, 0.3, 1, 3, 10 } }
local metrics = { "rank", "fro_error", "objective", "opt_gap", "test_loss" }
local settings = { rounds = 500, clients_per_round = 10, batch = 10, epochs = 1, eval_every = 10 }
-- The full grid is the reference. `--set halving=true` tunes by successive halving instead (rungs
-- of 56, 167 and 500 rounds, the best third of each algorithm's configurations going on,
-- continued from their state). On (I) it computes 66 % of the full grid's rounds (97 % with the
-- earlier rungs of 50, 150, 450 and 500 recomputed from round 0: most configurations diverge
-- within 10 rounds, and a diverged run stops at once in both) and selects the same step sizes
-- for three of the four algorithms, but not for FedDualAvg-OSP (η_s = 0.3, ‖W − W*‖_F 2.358, against the full
-- grid's η_s = 0.1, 2.073), eliminated at a rung where it still trailed (docs/performance.md).
local halving = nil
if fedlab.args.halving == true then halving = { eta = 3, first = 50 } end

local function algorithms()
  return { fedlab.algo.feddualavg{ label = "FedDualAvg" },
           fedlab.algo.feddualavg_osp{ label = "FedDualAvg-OSP" },
           fedlab.algo.fedmid{ label = "FedMiD" },
           fedlab.algo.fedmid_osp{ label = "FedMiD-OSP" } }
end

-- the call table of a sweep or comparison: settings plus the given keys
local function call(extra)
  local t = { metrics = metrics }
  for k, v in pairs(settings) do t[k] = v end
  for k, v in pairs(extra) do t[k] = v end
  return t
end

-- first round from which every seed of label keeps metric == target to the end
local function first_round(runs, label, metric, target)
  local found = nil
  for _, run in ipairs(runs) do
    if run.label == label then
      if run.status ~= "done" then return run.status end
      local since = nil
      for _, rec in ipairs(run.records) do
        if rec[metric] == target then since = since or rec.round else since = nil end
      end
      if since == nil then return "never" end
      if found == nil or since > found then found = since end
    end
  end
  return found
end

local function cfg(c) return string.format("(%g, %g)", c.eta_c, c.eta_s) end

local figures = {}
for _, v in ipairs(variants) do
  local data = fedlab.data.lowrank{ variant = v, seed = 1 }
  local problem = fedlab.problem{ data = data,
    loss = fedlab.loss.trace{ half = false, intercept = true },
    reg = fedlab.reg.nuclear{ lambda = lambda } }
  local opt = fedlab.optimum(problem)
  print(string.format("\n== low-rank (%s), true rank %d, λ = %g: centralized optimum Φ* = %.6g",
    v, rank_of[v], lambda, opt.objective))

  local sw = fedlab.sweep(call{ problem = problem, seeds = { 1 }, algorithms = algorithms(), grid = grid,
    name = "tuning (" .. v .. ")", halving = halving,
    select = { { metric = "fro_error", mode = "min", last = 100 },
               { metric = "test_loss", mode = "min", last = 100 } } })
  fedlab.sweep_table(sw, { title = "low-rank (" .. v .. "): mean ‖W − W*‖_F / validation MSE over the last 100 rounds",
    file = "fco_lowrank_tuning_" .. v .. ".md" })
  -- the same runs (reused, not rerun) ranked by the validation MSE
  local by_val = fedlab.sweep(call{ problem = problem, seeds = { 1 }, algorithms = algorithms(), grid = grid,
    name = "validation selection (" .. v .. ")", halving = halving,
    select = { { metric = "test_loss", mode = "min", last = 100 },
               { metric = "fro_error", mode = "min", last = 100 } } })
  for i, b in ipairs(sw.best) do
    local bv = by_val.best[i]
    print(string.format("  %-15s selected %-14s (‖W−W*‖_F %.4g, val. MSE %.4g); by validation MSE: %-14s (‖W−W*‖_F %.4g, val. MSE %.4g)%s",
      b.label, cfg(b.config), b.scores[1], b.scores[2], cfg(bv.config), bv.scores[2], bv.scores[1],
      (b.config.eta_c == bv.config.eta_c and b.config.eta_s == bv.config.eta_s) and "  same" or "  differs"))
  end

  local selected = {}
  for i, b in ipairs(sw.best) do selected[i] = b.algorithm end
  local runs = fedlab.compare(call{ problem = problem, seeds = { 1, 2, 3 }, algorithms = selected,
    name = "low-rank (" .. v .. ")" })
  fedlab.table(runs, { rounds = { 0, 50, 100, 200, 500 },
    title = "low-rank (" .. v .. "), tuned step sizes (Φ* = " .. string.format("%.6g", opt.objective) .. ")",
    file = "fco_lowrank_tuned_" .. v .. ".md" })
  for _, label in ipairs(labels) do
    print(string.format("  %-15s rank stays exactly %d from round: %s (all seeds)", label, rank_of[v],
      tostring(first_round(runs, label, "rank", rank_of[v]))))
  end
  -- the paper's claims (Sec. 5.2, Figs. 4, 9–11; docs/lua-api.md, "Claims") at the tuned step sizes
  local r, source = rank_of[v], ({ I = "FCO Fig. 4", II = "FCO Fig. 9", III = "FCO Fig. 10", IV = "FCO Fig. 11" })[v]
  local by = v == "IV" and 200 or 100
  fedlab.claim{ text = "(" .. v .. ") FedDualAvg finds the exact rank " .. r .. " in fewer than " .. by .. " rounds (and keeps it)",
    source = source, runs = runs, label = "FedDualAvg", metric = "rank", at_least = r, at_most = r, from = by }
  fedlab.claim{ text = "(" .. v .. ") FedMiD and FedMiD-OSP converge more slowly in loss (objective above FedDualAvg's at every evaluated round)",
    source = source, runs = runs, metric = "objective", order = { "FedDualAvg", { "FedMiD", "FedMiD-OSP" } }, direction = "increasing",
    throughout = true, seeds = "mean" }
  fedlab.claim{ text = "(" .. v .. ") FedMiD and FedMiD-OSP converge more slowly in rank (rank above " .. r .. " at round 500)",
    source = source, runs = runs, metric = "rank", order = { { "FedMiD", "FedMiD-OSP" }, "FedDualAvg" }, direction = "decreasing",
    at = 500, seeds = "mean" }
  if v == "IV" then
    fedlab.claim{ text = "(IV) FedDualAvg beats the others significantly (lowest ‖W − W*‖_F at round 500)",
      source = source, runs = runs, metric = "fro_error", order = { "FedDualAvg", { "FedDualAvg-OSP", "FedMiD", "FedMiD-OSP" } },
      direction = "increasing", at = 500 }
  else
    fedlab.claim{ text = "(" .. v .. ") FedDualAvg-OSP produces low-rank solutions (rank " .. r .. " at round 500)",
      source = source, runs = runs, label = "FedDualAvg-OSP", metric = "rank", at_least = r, at_most = r, at = 500 }
    fedlab.claim{ text = "(" .. v .. ") FedDualAvg-OSP is far less accurate (‖W − W*‖_F above FedDualAvg's at round 500)",
      source = source, runs = runs, metric = "fro_error", order = { "FedDualAvg", "FedDualAvg-OSP" }, direction = "increasing", at = 500 }
  end
  fedlab.csv(sw.runs, "fco_lowrank_tuning_" .. v .. ".csv")
  fedlab.csv(runs, "fco_lowrank_tuned_" .. v .. ".csv")
  figures[#figures + 1] = { v = v, runs = runs, opt = opt }
end

-- one figure per task: the paper's four panels (its "test loss" is the validation MSE), with the
-- centralized optimum Φ* as a dashed line on the objective
for _, f in ipairs(figures) do
  fedlab.plot(f.runs, { metrics = { "objective", "test_loss", "rank", "fro_error" },
    file = "fco_lowrank_" .. f.v, title = "low-rank (" .. f.v .. "), rank " .. rank_of[f.v] .. ", tuned step sizes",
    skip_round0 = true, width = 24, height = 16,
    hline = { value = f.opt.objective, label = "optimum (centralized)", metric = "objective" } })
end
