-- SUBSTITUTE for the FedPD paper's Fig. 6 (FEMNIST, a CNN, MATLAB: (a) FedAvg-GD, FedProx-VR and
-- FedPD-VR, test accuracy against samples; (b) FedPD-SGD with p = 0 and 0.5 against communications).
--
-- What differs from the paper:
--   * data and model as scripts/fedpd_fmnist_cnn.lua: Fashion-MNIST (6 000 training / 2 000 test
--     images, 20 Dirichlet(0.5) clients) and LeNet-5 instead of 90 FEMNIST agents and the LEAF CNN.
--   * FedAvg runs local SGD (Q = 20, batch 2) instead of local GD (Q = 8 full-gradient steps cost
--     48 000 samples per round here); FedProx-VR is left out; 100 rounds instead of the paper's run
--     length; one seed; SGD step sizes not tuned (FedPD-VR: the notes' reading of "η = 100, γ = 400"
--     as coefficients, i.e. a step of about 1/(100 + 400) = 0.002, is replaced by η = 1 and a grid
--     over γ).
--   * FedPD-VR: a full local gradient every I = 20 rounds, Q = 2 steps of batch 16 (paper: Q = 2,
--     batch not given).
--
-- FedPD-VR's γ over {0.003, 0.01, 0.03} (a gradient step of 1/(1/η + 1/γ)); the SGD methods are not
-- tuned. Results and figures: docs/reproductions.md ("Fig. 6 substitute"). Run time: see the table
-- "Run times" in docs/reproductions.md.
--
--   go run ./cmd/fedlab run scripts/fedpd_fmnist_cnn_vr.lua --out /tmp/fedpd_cnn_vr

local data = fedlab.data.fashion_mnist{ clients = 20, partition = "dirichlet", alpha = 0.5,
  train_samples = 6000, test_samples = 2000, seed = 1 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.cnn{} }
local metrics = { "train_loss", "test_accuracy", "comm_rounds", "samples" }
local common = { problem = problem, rounds = 100, seeds = { 1 }, eval_every = 10, init = "normal",
  init_scale = 0.1, metrics = metrics }

local function run(t)
  for k, v in pairs(common) do t[k] = v end
  return fedlab.compare(t)
end
local vr = run{ local_steps = 2, batch = 16, algorithms = {
  fedlab.algo.fedpd{ oracle = "II", eta = 1, gamma = 0.01, period = 20, label = "FedPD-VR" },
  fedlab.algo.fedpd{ oracle = "II", eta = 1, gamma = 0.003, period = 20, label = "FedPD-VR γ=0.003" },
  fedlab.algo.fedpd{ oracle = "II", eta = 1, gamma = 0.03, period = 20, label = "FedPD-VR γ=0.03" } } }
local sgd = run{ local_steps = 20, batch = 2, algorithms = {
  fedlab.algo.fedavg{ eta_c = 0.01, label = "FedAvg-SGD" },
  fedlab.algo.fedpd{ eta = 1, eta1 = 0.01, label = "FedPD-SGD p=0" },
  fedlab.algo.fedpd{ eta = 1, eta1 = 0.01, p = 0.5, label = "FedPD-SGD p=0.5" } } }
for _, r in ipairs({ vr, sgd }) do
  fedlab.table(r, { rounds = { 20, 50, 100 }, transpose = true, title = "Fashion-MNIST, LeNet-5, 20 clients" })
end
fedlab.csv(vr, "fedpd_cnn_vr.csv")
fedlab.csv(sgd, "fedpd_cnn_sgd.csv")

-- Fig. 6 (a): test accuracy against samples; (b): against communication rounds.
local all = {}
for _, r in ipairs({ vr, sgd }) do
  for _, run in ipairs(r) do table.insert(all, run) end
end
fedlab.plot(all, { metric = "test_accuracy", x = "samples", file = "fedpd_cnn_vr_samples",
  title = "LeNet-5, 20 clients: test accuracy against samples (FedPD Fig. 6a substitute)" })
fedlab.plot(all, { metric = "test_accuracy", x = "comm_rounds", file = "fedpd_cnn_vr_comm",
  title = "LeNet-5, 20 clients: test accuracy against communication rounds (Fig. 6b substitute)" })

-- The paper's claims (Fig. 6; docs/lua-api.md, "Claims"), one seed, round 100.
fedlab.claim{ text = "FedPD-VR reaches a given test accuracy with fewer samples than the SGD methods (higher test accuracy at round 100, with its larger sample count)",
  source = "FedPD Fig. 6(a)", runs = all, metric = "test_accuracy", order = { "FedPD-VR", { "FedAvg-SGD", "FedPD-SGD p=0", "FedPD-SGD p=0.5" } },
  direction = "decreasing", at = 100 }
fedlab.claim{ text = "FedPD-SGD with p = 0.5 matches p = 0 with fewer communications (test accuracy within 0.02 at round 100)", source = "FedPD Fig. 6(b)",
  runs = sgd, label = "FedPD-SGD p=0.5", metric = "test_accuracy", at = 100, equals = { label = "FedPD-SGD p=0", metric = "test_accuracy", at = 100 }, tol = 0.02 }
fedlab.claim{ text = "FedPD-SGD with p = 0.5 communicates in at most 60 % of the rounds", source = "FedPD Fig. 6(b)",
  runs = sgd, label = "FedPD-SGD p=0.5", metric = "comm_rounds", at_most = 60, at = 100 }
