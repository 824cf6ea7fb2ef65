-- SUBSTITUTE for the FedDA paper's CNN experiments (Secs. 6.2, 8.3; Figs. 2, 3, 11): CIFAR-10 iid
-- (10 clients), CIFAR-10 heterogeneous (80 % of one class per client) and FEMNIST (500 writers,
-- 50 per round), with a CNN, on Fashion-MNIST.
--
-- What differs from the paper:
--   * data: Fashion-MNIST (28×28 grey) instead of CIFAR-10 and FEMNIST; a 12 000-image training
--     subset and 2 000 test images (CPU budget). The "FEMNIST-like" setting has 500 clients by a
--     Dirichlet(0.5) partition (label and quantity skew, ≈ 24 images per client), 50 per round;
--     FEMNIST's writers differ in style, which is not imitated.
--   * model: LeNet-5 (fedlab.loss.cnn{}: conv 5×5 ×6 (padding 2) → pool → conv 5×5 ×16 → pool →
--     120 → 84 → 10, 61 706 parameters) instead of the paper's 4-layer CNN with 32/64 filters
--     (implemented as fedlab.loss.cnn{channels = {32, 32, 32, 32}, kernel = 3, padding = {1},
--     dense = {}}, about 3× the cost per sample here).
--   * methods: FedAvg, FedDA-MVR, FedDA-2-1, FedAdam (no FedCM, STEM, MIME-MVR, Local-AMSGrad,
--     Local-Adapt: CPU budget).
--   * rounds: 50 (10 clients, ≈ 3.3 epochs of the subset) and 20 (500 clients) instead of 4 000,
--     evaluated at the start, the middle and the end (CPU budget: 2 cores shared
--     by 7 jobs); one seed; I = 5, batch 16.
--   * step sizes are NOT tuned for the CNN (no CPU for it): the MLP script's values
--     (scripts/fedda_fmnist_mlp.lua) and, for FedDA-MVR, the active-VR setting selected by
--     scripts/fedda_fmnist_vr.lua (α₀ = 0.1, λ = 1).
--
-- Run time: see the table "Run times" in docs/reproductions.md.
--
--   go run ./cmd/fedlab run scripts/fedda_fmnist_cnn.lua --out /tmp/fedda_cnn

local I, B = 5, 16
local metrics = { "train_loss", "train_accuracy", "test_loss", "test_accuracy" }
local lenet = fedlab.loss.cnn{}
local fedda = { lr = 0.1, w = 1e5 }
fedda.c = 0.1 / (fedda.lr / fedda.w^(1 / 3))^2 -- α₀ = 0.1

local function algorithms()
  return {
    fedlab.algo.fedavg{ eta_c = 0.1, label = "FedAvg" },
    fedlab.algo.fedda_mvr{ lr = fedda.lr, w = fedda.w, c = fedda.c, label = "FedDA-MVR" },
    fedlab.algo.fedda_2_1{ lr = 0.01, label = "FedDA-2-1" },
    fedlab.algo.fedadam{ eta_c = 0.1, eta_s = 0.01, beta2 = 0.999, label = "FedAdam" },
  }
end

for _, s in ipairs({
  { name = "iid, 10 clients", data = { clients = 10, partition = "iid" }, rounds = 50, per_round = 0, file = "iid" },
  { name = "80%-dominant, 10 clients", data = { clients = 10, partition = "dominant", dominant = 0.8 }, rounds = 50, per_round = 0, file = "dominant" },
  { name = "500 clients (Dirichlet 0.5), 50 per round", data = { clients = 500, partition = "dirichlet", alpha = 0.5 }, rounds = 20, per_round = 50, file = "500" },
}) do
  s.data.train_samples, s.data.test_samples, s.data.seed = 12000, 2000, 1
  local problem = fedlab.problem{ data = fedlab.data.fashion_mnist(s.data), loss = lenet }
  local runs = fedlab.compare{ problem = problem, rounds = s.rounds, local_steps = I, batch = B,
    clients_per_round = s.per_round, seeds = { 1 }, eval_every = math.floor(s.rounds / 2), init = "normal", init_scale = 0.1,
    algorithms = algorithms(), metrics = metrics }
  fedlab.table(runs, { transpose = true, title = "Fashion-MNIST, LeNet-5, " .. s.name })
  fedlab.csv(runs, "fedda_cnn_" .. s.file .. ".csv")
  fedlab.plot(runs, { metric = "train_loss", log = true, file = "fedda_cnn_" .. s.file .. "_train_loss", title = "LeNet-5, " .. s.name })
  fedlab.plot(runs, { metric = "test_accuracy", file = "fedda_cnn_" .. s.file .. "_test_accuracy", title = "LeNet-5, " .. s.name })
end
