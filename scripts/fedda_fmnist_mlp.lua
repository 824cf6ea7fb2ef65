-- The FedDA paper's comparison with a small neural network: a 784-200-200-10 ReLU MLP (per-layer
-- kernel blocks, biases free) on a 12 000-image subset of Fashion-MNIST (test: 2 000 images),
-- 10 clients, I = 5, batch 16, iid and heterogeneous ("dominant", ρ = 0.8) splits, no ℓ1.
--   go run ./cmd/fedlab run scripts/fedda_fmnist_mlp.lua    (12.4 min wall, --jobs 2 (table "Run times" in docs/reproductions.md))
-- The MLP needs a random start (the zero model is a saddle point): init = "normal", scale 0.05.
-- Hyper-parameters: a grid per method on the iid split (100 rounds, seed 1, lowest training loss),
-- see docs/reproductions.md (FedDA); ν₀ of the MVR/momentum methods uses 256 samples per client.
local rounds, seeds = 300, { 1, 2 }
local metrics = { "train_loss", "train_accuracy", "test_loss", "test_accuracy", "density" }
for _, part in ipairs{ "iid", "dominant" } do
  local data = fedlab.data.fashion_mnist{ clients = 10, partition = part, dominant = 0.8,
                                          train_samples = 12000, test_samples = 2000 }
  local problem = fedlab.problem{ data = data, loss = fedlab.loss.mlp{ hidden = { 200, 200 } } }
  local runs = fedlab.compare{ problem = problem, rounds = rounds, local_steps = 5, batch = 16,
    seeds = seeds, eval_every = 50, init = "normal", init_scale = 0.05, metrics = metrics,
    algorithms = {
      fedlab.algo.fedda_mvr{ lr = 0.1, init_batch = 256, label = "FedDA-MVR" },
      fedlab.algo.fedda_2_1{ lr = 0.01, init_batch = 256, label = "FedDA-2-1" },
      fedlab.algo.fedavg{ eta_c = 0.3, label = "FedAvg" },
      fedlab.algo.fedadam{ eta_c = 0.1, eta_s = 0.01, beta2 = 0.999, label = "FedAdam" },
      fedlab.algo.fedcm{ eta_c = 1, alpha = 0.1, label = "FedCM" },
      fedlab.algo.stem{ lr = 3, w = 100, c = 2000, init_batch = 256, label = "STEM" },
      fedlab.algo.mime_mvr{ lr = 1, w = 100, c = 2000, anchor_batches = 8, init_batch = 256, label = "MIME-MVR" },
      fedlab.algo.local_amsgrad{ eta_c = 0.001, label = "Local-AMSGrad" },
    } }
  fedlab.table(runs, { rounds = { 50, 100, 200, 300 },
    title = "Fashion-MNIST (12k subset), MLP 784-200-200-10, " .. part .. " split, I = 5" })
  fedlab.csv(runs, "fedda_fmnist_mlp_" .. part .. ".csv")
end
