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

-- The paper's claims (Figs. 7–8; docs/lua-api.md, "Claims"), one seed.
local R = runs[1].records[#runs[1].records].round
fedlab.claim{ text = "FedAvg is slower than FedPD and FedProx (higher training loss at every evaluated round)", source = "FedPD Figs. 7–8",
  runs = runs, metric = "train_loss", order = { { "FedProx", "FedPD p=0" }, "FedAvg 0.001" }, direction = "increasing", throughout = true }
fedlab.claim{ text = "FedAvg is slower than FedPD and FedProx (lower test accuracy at round " .. R .. ")", source = "FedPD Figs. 7–8",
  runs = runs, metric = "test_accuracy", order = { { "FedProx", "FedPD p=0" }, "FedAvg 0.001" }, direction = "decreasing", at = R }
fedlab.claim{ text = "FedProx performs similarly to FedPD with p = 0 (test accuracy within 0.02 at round " .. R .. ")", source = "FedPD Figs. 7–8",
  runs = runs, label = "FedProx", metric = "test_accuracy", at = R, equals = { label = "FedPD p=0", metric = "test_accuracy", at = R }, tol = 0.02 }
fedlab.claim{ text = "communicating less (p = 0.5) makes FedPD better per communication (ahead of p = 0 after as many communications)",
  source = "FedPD Figs. 7–8", runs = runs, check = function(rs)
    local half, full
    for _, r in ipairs(rs) do
      if r.status ~= "done" and (r.label == "FedPD p=0.5" or r.label == "FedPD p=0") then return nil, r.label .. " " .. r.status end
      if r.label == "FedPD p=0.5" then half = r elseif r.label == "FedPD p=0" then full = r end
    end
    local comms, acc = half.final.comm_rounds, half.final.test_accuracy
    local best, at = nil, nil -- p = 0's accuracy at its last evaluation with at most as many communications
    for _, rec in ipairs(full.records) do
      if rec.comm_rounds <= comms then best, at = rec.test_accuracy, rec.round end
    end
    if best == nil then return nil, "p = 0 has no evaluation within " .. comms .. " communications" end
    return acc > best, string.format("p = 0.5: test accuracy %.3f after %d communications; p = 0: %.3f after %d", acc, comms, best, at)
  end }
