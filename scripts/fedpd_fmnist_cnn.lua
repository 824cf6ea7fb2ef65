-- SUBSTITUTE for the FedPD paper's neural-network experiments (Sec. 4 / App. H.2, Figs. 6-8:
-- FEMNIST, a CNN, FedAvg vs FedProx vs FedPD with communication skipping).
--
-- What differs from the paper:
--   * data: Fashion-MNIST, a 6 000-image training subset and 2 000 test images, 20 clients by a
--     Dirichlet(0.5) partition (label and quantity skew; the paper: 90 agents holding 100 FEMNIST
--     writers, 62 classes).
--   * model: LeNet-5 (fedlab.loss.cnn{}) instead of the code's CNN (two 5×5 convolutions with 32
--     and 64 filters, FC 3136 → 2048 → 62): the same kind of network, 40× fewer parameters.
--   * protocol (Figs. 7-8, the PyTorch runs): local SGD with batch 2 and the paper's steps
--     (FedAvg 0.001 — without the code's momentum 0.5 —, FedProx 0.01 with ρ = 1, FedPD 0.01
--     with η = 1, i.e. μ = 1/η = 1 as in the code), but Q = 30 local steps (paper 300) and 40
--     rounds (paper 1 000); FedPD p = 0 and 0.5 (skip probability; the paper also 0.25); one
--     seed (CPU budget: 2 cores shared by 7 jobs).
--
-- Run time: see the table "Run times" in docs/reproductions.md.
--
--   go run ./cmd/fedlab run scripts/fedpd_fmnist_cnn.lua --out /tmp/fedpd_cnn

local data = fedlab.data.fashion_mnist{ clients = 20, partition = "dirichlet", alpha = 0.5,
  train_samples = 6000, test_samples = 2000, seed = 1 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.cnn{} }
local runs = fedlab.compare{ problem = problem, rounds = 40, local_steps = 30, batch = 2, seeds = { 1 },
  eval_every = 10, init = "normal", init_scale = 0.1,
  metrics = { "train_loss", "train_accuracy", "test_loss", "test_accuracy", "comm_rounds" },
  algorithms = {
    fedlab.algo.fedavg{ eta_c = 0.001, label = "FedAvg 0.001" },
    fedlab.algo.fedprox{ eta_c = 0.01, rho = 1, label = "FedProx" },
    fedlab.algo.fedpd{ eta = 1, eta1 = 0.01, label = "FedPD p=0" },
    fedlab.algo.fedpd{ eta = 1, eta1 = 0.01, p = 0.5, label = "FedPD p=0.5" },
  } }
fedlab.table(runs, { rounds = { 10, 20, 40 }, transpose = true,
  title = "Fashion-MNIST (substitute for FEMNIST), LeNet-5, 20 clients, Q = 30, batch 2" })
fedlab.csv(runs, "fedpd_fmnist_cnn.csv")
fedlab.plot(runs, { metric = "train_loss", log = true, file = "fedpd_cnn_train_loss" })
fedlab.plot(runs, { metric = "test_accuracy", x = "comm_rounds", file = "fedpd_cnn_test_accuracy" })
