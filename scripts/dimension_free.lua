-- Is federated sparse recovery "dimension-free"? Rounds (and floats communicated) to reach a
-- target support F1 and ℓ2 error as the dimension d grows from 2^10 to 2^20, with the
-- sparsity s = 8, the clients M = 8 and the samples (100 per client) fixed.
-- Data: fedlab.data.sparse_federated (20 nonzeros per sample with power-law feature
-- frequencies, ±1 truth on s frequent features, y = xᵀw* + 0.1ε), least squares with
-- ℓ1 (λ = 0.01). Every client takes part in every round, 5 local steps of batch 10.
--   Euclidean:  FedDualAvg, FedMiD (η_c = 0.05)                 — lazy O(nnz) client steps
--   p-norm map, p = 2 ln d:  FedDualAvg, DFedDA-GT on a ring (η_c = 10) — O(d) client steps
-- Step sizes were tuned once at d = 2^14 and held fixed across d. Theory (the FedDA-GT
-- paper; Nemirovski-Yudin / Shalev-Shwartz-Tewari for p-norm mirror descent) bounds the
-- rounds of the p-norm methods by a factor growing like log d, while the Euclidean bounds
-- grow with ‖x‖₂-type constants, which are fixed here by the fixed nonzeros per sample.
-- See docs/reproductions.md ("Dimension-free?").  Runtime: about 4 minutes of CPU, nearly all in
-- the p-norm runs at d = 2^18 and 2^20 (37 minutes wall on the loaded shared machine).
--   nice -n 10 fedlab run scripts/dimension_free.lua
local s, M, n, nnz, lambda = 8, 8, 100, 20, 0.01
local rounds, target_f1, target_l2 = 150, 0.9, 1.0
local metrics = { fedlab.metric.f1{ threshold = 0.05 }, "l2_error" }

-- first record reaching the target: round and floats communicated (up + down)
local function hit(run, metric, ok)
  for _, r in ipairs(run.records) do
    if ok(r[metric]) then return r.round, r.comm_up + r.comm_down end
  end
  return nil, nil
end

local series = {}   -- label → { logd = {}, f1 = {}, l2 = {} }
local order = {}
local rows = {}
for logd = 10, 20, 2 do
  local data = fedlab.data.sparse_federated{ dim = 2^logd, support = s, clients = M, samples = n,
    nnz = nnz, exponent = 1.1, noise = 0.1, seed = 1 }
  local loss, reg = fedlab.loss.squared{ half = true, intercept = false }, fedlab.reg.l1{ lambda = lambda }
  local runs = {}
  for _, r in ipairs(fedlab.compare{ problem = fedlab.problem{ data = data, loss = loss, reg = reg },
      rounds = rounds, local_steps = 5, batch = 10, eval_every = 2, metrics = metrics,
      algorithms = { fedlab.algo.feddualavg{ eta_c = 0.05, label = "FedDualAvg (Euclidean)" },
                     fedlab.algo.fedmid{ eta_c = 0.05, label = "FedMiD (Euclidean)" } } }) do
    runs[#runs + 1] = r
  end
  for _, r in ipairs(fedlab.compare{ problem = fedlab.problem{ data = data, loss = loss, reg = reg,
      mirror = fedlab.mirror.pnorm{ p = 0 } },
      rounds = rounds, local_steps = 5, batch = 10, eval_every = 2, metrics = metrics,
      algorithms = { fedlab.algo.feddualavg{ eta_c = 10, label = "FedDualAvg (p-norm)" },
                     fedlab.algo.dfedda_gt{ eta_c = 10, topology = "ring", label = "DFedDA-GT (p-norm)" } } }) do
    runs[#runs + 1] = r
  end
  for _, r in ipairs(runs) do
    local rf, cf = hit(r, "f1", function(v) return v >= target_f1 end)
    local rl, cl = hit(r, "l2_error", function(v) return v <= target_l2 end)
    rows[#rows + 1] = { r.label, logd, rf, cf, rl, cl, r.final.f1, r.final.l2_error }
    if not series[r.label] then series[r.label] = { logd = {}, f1 = {}, l2 = {} }; order[#order + 1] = r.label end
    local sr = series[r.label]
    sr.logd[#sr.logd + 1] = logd
    sr.f1[#sr.f1 + 1] = rf or (0 / 0)
    sr.l2[#sr.l2 + 1] = rl or (0 / 0)
  end
end

local function cell(v) if v == nil then return "not reached" end return string.format("%d", v) end
print(string.format("targets: F1 ≥ %g (threshold 0.05), ℓ2 error ≤ %g (‖w*‖ = %.3f); %d rounds at most",
  target_f1, target_l2, math.sqrt(s), rounds))
print("| algorithm | log2 d | rounds to F1 | floats to F1 | rounds to ℓ2 | floats to ℓ2 | final F1 | final ℓ2 |")
print("|---|---|---|---|---|---|---|---|")
table.sort(rows, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] < b[2] end)
for _, r in ipairs(rows) do
  print(string.format("| %s | %d | %s | %s | %s | %s | %.3f | %.3f |", r[1], r[2], cell(r[3]),
    r[4] and string.format("%.3g", r[4]) or "–", cell(r[5]), r[6] and string.format("%.3g", r[6]) or "–", r[7], r[8]))
end

local f1_lines, l2_lines = {}, {}
for _, label in ipairs(order) do
  local sr = series[label]
  f1_lines[#f1_lines + 1] = { label = label, x = sr.logd, y = sr.f1 }
  l2_lines[#l2_lines + 1] = { label = label, x = sr.logd, y = sr.l2 }
end
fedlab.xyplot{ series = f1_lines, file = "dimension_free_f1", xlabel = "log2 d", ylabel = "rounds",
  title = string.format("rounds to support F1 ≥ %g (s = %d, M = %d, n = %d)", target_f1, s, M, n) }
fedlab.xyplot{ series = l2_lines, file = "dimension_free_l2", xlabel = "log2 d", ylabel = "rounds",
  title = string.format("rounds to l2 error ≤ %g (s = %d, M = %d, n = %d)", target_l2, s, M, n) }
