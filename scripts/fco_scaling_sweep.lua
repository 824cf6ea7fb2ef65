-- The FCO paper's learning-rate grid on federated LASSO (I) (App. B.2) repeated on rescaled
-- features, to test whether a feature scaling explains the paper's reported optima
-- (FedDualAvg (0.01, 1), FedMiD (0.001, 0.3)) — docs/reproductions.md, "The paper's learning
-- rates diverge on the data as described".
--
-- Features are multiplied by s after y is computed (fedlab.data.lasso{scale = s}), so the truth
-- becomes w*/s; λ is scaled by s so that the LASSO solution pattern is unchanged. For
-- s ∈ {0.1, 1/32 (= 1/√d)}: the 7 × 7 grid η_c ∈ {0.001 … 1} × η_s ∈ {0.01 … 10} for FedDualAvg and
-- FedMiD, one seed, 500 rounds, selection by mean F1 over the last 100 rounds, ties by mean ℓ2
-- error (as scripts/fco_lasso_sweep.lua, which is the s = 1 case and is not repeated here).
--
-- The sweeps use successive halving (docs/lua-api.md): it selects the same four configurations,
-- with the same scores, as the full grid at 34 % of its rounds (docs/performance.md, "Successive
-- halving on the shipped tuning sweeps"); `--set full_grid=true` runs the full grid.
--
-- Run time: see the table "Run times" in docs/reproductions.md.
--
--   go run ./cmd/fedlab run scripts/fco_scaling_sweep.lua --out /tmp/fco_scaling
--   go run ./cmd/fedlab run scripts/fco_scaling_sweep.lua --set full_grid=true --out /tmp/fco_scaling_full

local function with(t, extra)
  local o = {}
  for k, v in pairs(t) do o[k] = v end
  for k, v in pairs(extra) do o[k] = v end
  return o
end

-- successive halving (rungs of 56, 167 and 500 rounds; the best third of each algorithm's
-- configurations go on, continued from their state); `--set full_grid=true` runs every
-- configuration to 500 rounds instead
local halving = { eta = 3, first = 50 }
if fedlab.args.full_grid == true then halving = nil end

print("best (η_c, η_s) per feature scale s")
local summary = {}
for _, s in ipairs({ 0.1, 1 / 32 }) do
  local problem = fedlab.problem{ data = fedlab.data.lasso{ variant = "I", seed = 1, scale = s },
    loss = fedlab.loss.squared{ half = false }, reg = fedlab.reg.l1{ lambda = 0.3 * s } }
  local sw = fedlab.sweep{ problem = problem, rounds = 500, clients_per_round = 10, batch = 10, epochs = 1,
    eval_every = 10, metrics = { "f1", "l2_error" }, seeds = { 1 }, halving = halving,
    algorithms = { fedlab.algo.feddualavg{ label = "FedDualAvg" }, fedlab.algo.fedmid{ label = "FedMiD" } },
    grid = { eta_c = { 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1 }, eta_s = { 0.01, 0.03, 0.1, 0.3, 1, 3, 10 } },
    select = { { metric = "f1", mode = "max", last = 100 }, { metric = "l2_error", mode = "min", last = 100 } } }
  fedlab.sweep_table(sw, { title = string.format("LASSO (I), features × %g, λ = %g", s, 0.3 * s) })
  for _, b in ipairs(sw.best) do
    table.insert(summary, string.format("  s = %-8.4g %-11s η_c = %-6g η_s = %-5g F1 %.4f", s, b.label,
      b.config.eta_c, b.config.eta_s, b.scores[1]))
  end
end
print("\nsummary: selected configuration per scale")
for _, l in ipairs(summary) do print(l) end
