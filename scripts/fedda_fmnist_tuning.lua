-- The step-size grids behind scripts/fedda_fmnist.lua (docs/reproductions.md, FedDA, "Set-up of
-- the runs"): per method and split, the grid over the ranges stated there, 300 rounds, seed 1,
-- lowest final training loss; Fashion-MNIST, 10 clients, full participation, I = 5, batch 16,
-- multinomial logistic regression. The grid values below reconstruct the stated ranges (the
-- original grids were run by hand); the doc's tuning table is this script's output.
--
-- Run time: see the table "Run times" in docs/reproductions.md.
--
--   go run ./cmd/fedlab run scripts/fedda_fmnist_tuning.lua --out /tmp/fedda_tuning

local methods = {
  { algo = fedlab.algo.fedavg{ label = "FedAvg" }, key = "eta_c", values = { 0.01, 0.03, 0.1, 0.3 } },
  { algo = fedlab.algo.fedcm{ alpha = 0.1, label = "FedCM" }, key = "eta_c", values = { 0.01, 0.1, 0.3, 1 } },
  { algo = fedlab.algo.fedadam{ eta_c = 0.1, beta2 = 0.999, label = "FedAdam" }, key = "eta_s", values = { 0.001, 0.003, 0.01, 0.03 } },
  { algo = fedlab.algo.local_amsgrad{ label = "Local-AMSGrad" }, key = "eta_c", values = { 0.0003, 0.001, 0.01, 0.03 } },
  { algo = fedlab.algo.stem{ w = 100, c = 2000, label = "STEM" }, key = "lr", values = { 0.1, 0.3, 1, 3 } },
  { algo = fedlab.algo.mime_mvr{ w = 100, c = 2000, anchor_batches = 8, label = "MIME-MVR" }, key = "lr", values = { 0.1, 0.3, 1, 3 } },
  { algo = fedlab.algo.fedda_mvr{ label = "FedDA-MVR" }, key = "lr", values = { 0.005, 0.02, 0.1, 1 } },
  { algo = fedlab.algo.fedda_1_2{ label = "FedDA-1-2" }, key = "lr", values = { 0.3, 1, 3 } },
  { algo = fedlab.algo.fedda_2_1{ label = "FedDA-2-1" }, key = "lr", values = { 0.0003, 0.003, 0.03 } },
  { algo = fedlab.algo.fedda_2_2{ label = "FedDA-2-2" }, key = "lr", values = { 0.003, 0.01, 0.03, 0.1 } },
  { algo = fedlab.algo.local_adapt{ eta_c = 0.003, label = "Local-Adapt" }, key = "eta_s", values = { 0.003, 0.01, 0.03 } },
}

local picked = {}
for _, part in ipairs({ "iid", "dominant" }) do
  local problem = fedlab.problem{ data = fedlab.data.fashion_mnist{ clients = 10, partition = part, dominant = 0.8 },
    loss = fedlab.loss.multinomial{} }
  for _, m in ipairs(methods) do
    local sw = fedlab.sweep{ problem = problem, rounds = 300, local_steps = 5, batch = 16, seeds = { 1 },
      eval_every = 50, metrics = { "train_loss" }, algorithms = { m.algo }, grid = { [m.key] = m.values },
      select = { metric = "train_loss", mode = "min" } }
    fedlab.sweep_table(sw, { title = part .. ": " .. sw.best[1].label })
    table.insert(picked, string.format("  %-9s %-14s %s = %g (train loss %.4f)", part, sw.best[1].label, m.key,
      sw.best[1].config[m.key], sw.best[1].score))
  end
end
print("\nselected step sizes (300 rounds, seed 1, lowest final training loss)")
for _, l in ipairs(picked) do print(l) end
