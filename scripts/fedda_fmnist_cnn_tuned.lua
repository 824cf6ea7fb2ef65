-- SUBSTITUTE for the FedDA paper's CNN experiments (Secs. 6.2, 8.3; Figs. 2, 3, 11), with the
-- step sizes TUNED for the CNN per setting (scripts/fedda_fmnist_cnn.lua runs the same settings
-- with step sizes borrowed from the MLP and is kept as the untuned reference).
--
-- Settings, data and model as scripts/fedda_fmnist_cnn.lua: LeNet-5 on a 12 000-image
-- Fashion-MNIST training subset (2 000 test images); iid and 80 %-dominant with 10 clients
-- (50 rounds), 500 Dirichlet(0.5) clients with 50 per round (20 rounds); I = 5, batch 16, one
-- seed.
--
-- Tuning (per setting, seed 1, lowest training loss at the end of a short run: 20 rounds for the
-- 10-client settings, 8 for the 500-client one): FedAvg η_c, FedDA-MVR lr (c set so that
-- α₀ = min(1, c·η²) = 0.1, λ = 1, as scripts/fedda_fmnist_vr.lua selected: the variance
-- reduction is active), FedDA-2-1 lr, FedAdam η_s (η_c = 0.1), three values each, one decade
-- wide around the untuned value. The selected settings then run the full length.
-- What differs from the paper: as scripts/fedda_fmnist_cnn.lua (data, model, 50/20 rounds
-- instead of 4 000, four methods, one seed); the grids are 3 values, not the paper's.
--
-- Run time: see the table "Run times" in docs/reproductions.md.
--
--   go run ./cmd/fedlab run scripts/fedda_fmnist_cnn_tuned.lua --out /tmp/fedda_cnn_tuned

local I, B = 5, 16
local metrics = { "train_loss", "train_accuracy", "test_loss", "test_accuracy" }
local lenet = fedlab.loss.cnn{}
local w = 1e5
local function c_for(lr) return 0.1 / (lr / w^(1 / 3))^2 end -- α₀ = c·(lr/w^{1/3})² = 0.1

local methods = {
  { label = "FedAvg", algo = fedlab.algo.fedavg{ label = "FedAvg" }, grid = { eta_c = { 0.03, 0.1, 0.3 } } },
  { label = "FedDA-MVR", algo = fedlab.algo.fedda_mvr{ w = w, label = "FedDA-MVR" },
    configs = { { lr = 0.03, c = c_for(0.03) }, { lr = 0.1, c = c_for(0.1) }, { lr = 0.3, c = c_for(0.3) } } },
  { label = "FedDA-2-1", algo = fedlab.algo.fedda_2_1{ label = "FedDA-2-1" }, grid = { lr = { 0.001, 0.003, 0.01 } } },
  { label = "FedAdam", algo = fedlab.algo.fedadam{ eta_c = 0.1, beta2 = 0.999, label = "FedAdam" }, grid = { eta_s = { 0.003, 0.01, 0.03 } } },
}

local selected = {}
for _, s in ipairs({
  { name = "iid, 10 clients", data = { clients = 10, partition = "iid" }, rounds = 50, tune = 20, per_round = 0, file = "iid" },
  { name = "80%-dominant, 10 clients", data = { clients = 10, partition = "dominant", dominant = 0.8 }, rounds = 50, tune = 20, per_round = 0, file = "dominant" },
  { name = "500 clients (Dirichlet 0.5), 50 per round", data = { clients = 500, partition = "dirichlet", alpha = 0.5 }, rounds = 20, tune = 8, per_round = 50, file = "500" },
}) do
  s.data.train_samples, s.data.test_samples, s.data.seed = 12000, 2000, 1
  local problem = fedlab.problem{ data = fedlab.data.fashion_mnist(s.data), loss = lenet }
  local algorithms = {}
  for _, m in ipairs(methods) do
    local sw = fedlab.sweep{ problem = problem, rounds = s.tune, local_steps = I, batch = B,
      clients_per_round = s.per_round, seeds = { 1 }, init = "normal", init_scale = 0.1, eval_every = s.tune,
      metrics = { "train_loss" }, algorithms = { m.algo }, grid = m.grid, configs = m.configs,
      select = { metric = "train_loss", mode = "min" }, name = s.file .. " tuning " .. m.label }
    fedlab.sweep_table(sw, { title = s.name .. ": " .. sw.best[1].label .. ", training loss after " .. s.tune .. " rounds" })
    table.insert(algorithms, sw.best[1].algorithm)
    local cfg = {}
    for k, v in pairs(sw.best[1].config) do table.insert(cfg, string.format("%s = %.4g", k, v)) end
    table.sort(cfg)
    table.insert(selected, string.format("  %-44s %-10s %s", s.name, sw.best[1].label, table.concat(cfg, ", ")))
  end
  local runs = fedlab.compare{ problem = problem, rounds = s.rounds, local_steps = I, batch = B,
    clients_per_round = s.per_round, seeds = { 1 }, eval_every = math.floor(s.rounds / 10), init = "normal", init_scale = 0.1,
    algorithms = algorithms, metrics = metrics, name = "LeNet-5, tuned, " .. s.name }
  fedlab.table(runs, { transpose = true, title = "Fashion-MNIST, LeNet-5, tuned step sizes, " .. s.name })
  fedlab.csv(runs, "fedda_cnn_tuned_" .. s.file .. ".csv")
  fedlab.plot(runs, { metrics = { "train_loss", "test_accuracy" }, file = "fedda_cnn_tuned_" .. s.file,
    title = "LeNet-5, tuned step sizes, " .. s.name })
end
print("\nselected step sizes (training loss after the short tuning run, seed 1)")
for _, l in ipairs(selected) do print(l) end
