-- Bao, Crawshaw, Luo & Liu (ICML 2022), Fig. 2 at the authors' length: the problem, methods and
-- settings of scripts/bao_lowrank.lua run for 1500 rounds (the authors' code) instead of 1000,
-- seeds 1-2, without MC-FedDA (last), to check that 1000 rounds change no conclusion
-- (docs/reproductions.md, Bao et al., Fig. 2).
--
-- Run time: see the table "Run times" in docs/reproductions.md.
--
--   go run ./cmd/fedlab run scripts/bao_lowrank_1500.lua --out /tmp/bao_lowrank_1500

local data = fedlab.data.lowrank_shift{ size = 32, rank = 16, clients = 64, samples = 128,
  test_samples = 0, seed = 1 }
local problem = fedlab.problem{ data = data,
  loss = fedlab.loss.trace{ half = true, intercept = false },
  reg = fedlab.reg.nuclear{ lambda = 0.1 } }
local metrics = { "fro_error", "op_error", fedlab.metric.rank{ threshold = 1e-8 }, "train_loss" }

local runs = fedlab.compare{ problem = problem, seeds = { 1, 2 }, rounds = 1500, clients_per_round = 10,
  local_steps = 10, batch = 10, init = "normal", init_scale = 1, eval_every = 25, metrics = metrics,
  algorithms = {
    fedlab.algo.fastfedda{ mu = 0.1, L = 550, weights = "constant", label = "Fast-FedDA" },
    fedlab.algo.cfedda{ mu = 0.1, L = 600, weights = "constant", label = "C-FedDA" },
    fedlab.algo.mcfedda{ mu = 0.1, L = 600, weights = "constant", lambda0 = 0.3,
      stage_rounds = { 250, 250 }, radius0 = 5000, restart = "average", label = "MC-FedDA" },
    fedlab.algo.feddualavg{ eta_c = 0.001, eta_s = 1, label = "FedDualAvg" },
    fedlab.algo.fedmid{ eta_c = 0.001, eta_s = 1, label = "FedMiD" },
  } }
fedlab.table(runs, { rounds = { 1000, 1250, 1500 }, transpose = true,
  title = "Fig. 2 continued to 1500 rounds" })
fedlab.csv(runs, "bao_lowrank_1500.csv")

-- The paper's claims at the authors' 1500 rounds (Fig. 2 caption; docs/lua-api.md, "Claims").
for _, label in ipairs({ "Fast-FedDA", "C-FedDA", "MC-FedDA", "FedDualAvg" }) do
  fedlab.claim{ text = "except FedMiD, the methods all recover the true rank of W* (" .. label .. ": rank 16 at round 1500)",
    source = "Bao et al. Fig. 2", runs = runs, label = label, metric = "rank", at_most = 16, at = 1500 }
end
fedlab.claim{ text = "FedMiD does not recover the true rank of W* (rank > 16 at round 1500)", source = "Bao et al. Fig. 2",
  runs = runs, label = "FedMiD", metric = "rank", at_least = 17, at = 1500 }
