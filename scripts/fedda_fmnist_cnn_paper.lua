-- The FedDA paper's own CNN on all of Fashion-MNIST (issue 21): the 4-layer CNN of Secs. 6.2 and
-- 8.3 (4 × [conv 3×3, 32 filters, padding 1, ReLU, max-pool 2], then a linear layer; 28,394
-- parameters) in float32, on the 60,000 training and 10,000 test images, in
-- the paper's three settings: 10 clients iid, 10 clients 80 %-dominant (80 % of a class on its
-- client), and 500 clients (Dirichlet 0.5) with 50 per round; I = 5 local steps, batch 16.
--
-- What differs from the paper: Fashion-MNIST instead of CIFAR-10 and FEMNIST; 100 rounds (10
-- clients) and 30 rounds (500 clients) instead of 4,000 (CPU budget: 2 cores); one seed;
-- FedAvg, FedDA-MVR, FedDA-2-1 and FedAdam with the step sizes of scripts/fedda_fmnist_cnn.lua
-- (not tuned for this model); evaluated at the start, the middle and the end on the whole
-- training and test sets.
--
-- Usage: fedlab run scripts/fedda_fmnist_cnn_paper.lua [--out DIR]   (needs dataset-fashion-mnist;
-- 20 min wall, 25 min CPU on 2 cores shared with other jobs; results: docs/reproductions.md)
local I, B = 5, 16
local metrics = { "train_loss", "train_accuracy", "test_loss", "test_accuracy" }
local cnn = fedlab.loss.cnn{ channels = { 32, 32, 32, 32 }, kernel = 3, padding = { 1 }, pool = 2, dense = {},
  precision = "float32" }
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
  { name = "iid, 10 clients", data = { clients = 10, partition = "iid" }, rounds = 100, per_round = 0, file = "iid" },
  { name = "80%-dominant, 10 clients", data = { clients = 10, partition = "dominant", dominant = 0.8 }, rounds = 100, per_round = 0, file = "dominant" },
  { name = "500 clients (Dirichlet 0.5), 50 per round", data = { clients = 500, partition = "dirichlet", alpha = 0.5 }, rounds = 30, per_round = 50, file = "500" },
}) do
  s.data.seed = 1
  local problem = fedlab.problem{ data = fedlab.data.fashion_mnist(s.data), loss = cnn }
  local runs = fedlab.compare{ problem = problem, rounds = s.rounds, local_steps = I, batch = B,
    clients_per_round = s.per_round, seeds = { 1 }, eval_every = math.floor(s.rounds / 2), init = "normal", init_scale = 0.1,
    algorithms = algorithms(), metrics = metrics, name = s.name }
  fedlab.table(runs, { transpose = true, title = "Fashion-MNIST (60,000 images), the FedDA paper's 4-layer CNN, float32, " .. s.name })
  fedlab.csv(runs, "fedda_cnn_paper_" .. s.file .. ".csv")
end
