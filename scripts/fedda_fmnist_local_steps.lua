-- The FedDA paper's ablations over the number of local steps (Sec. 8.2, Figs. 7–10: FedCM vs
-- FedDA-2-1/2-2, Local-AMSGrad vs FedDA-2-1, FedAdam and Local-Adapt vs FedDA-2-1, and the four
-- FedDA variants at I = 5, 10, 20) transposed to Fashion-MNIST: iid split, 10 clients, batch 16,
-- logistic model, the same number of rounds for every I (the paper plots against rounds).
--   go run ./cmd/fedlab run scripts/fedda_fmnist_local_steps.lua    (3.7 min wall, --jobs 2 (table "Run times" in docs/reproductions.md))
-- Hyper-parameters were tuned at I = 5 (docs/reproductions.md, FedDA) and kept for I = 10, 20.
local rounds, seeds = 500, { 1, 2 }
local data = fedlab.data.fashion_mnist{ clients = 10, partition = "iid" }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.multinomial{} }
local all = {}
for _, I in ipairs{ 5, 10, 20 } do
  local runs = fedlab.compare{ problem = problem, rounds = rounds, local_steps = I, batch = 16,
    seeds = seeds, eval_every = 50,
    metrics = { "train_loss", "train_accuracy", "test_accuracy" },
    algorithms = {
      fedlab.algo.fedda_mvr{ lr = 0.1, label = "FedDA-1-1 I=" .. I },
      fedlab.algo.fedda_1_2{ lr = 1, label = "FedDA-1-2 I=" .. I },
      fedlab.algo.fedda_2_1{ lr = 0.003, label = "FedDA-2-1 I=" .. I },
      fedlab.algo.fedda_2_2{ lr = 0.01, label = "FedDA-2-2 I=" .. I },
      fedlab.algo.fedcm{ eta_c = 0.3, alpha = 0.1, label = "FedCM I=" .. I },
      fedlab.algo.local_amsgrad{ eta_c = 0.01, label = "Local-AMSGrad I=" .. I },
      fedlab.algo.fedadam{ eta_c = 0.1, eta_s = 0.01, beta2 = 0.999, label = "FedAdam I=" .. I },
      fedlab.algo.local_adapt{ eta_c = 0.003, eta_s = 0.003, label = "Local-Adapt I=" .. I },
    } }
  table.insert(all, runs)
end
fedlab.table(all, { rounds = { 100, 250, 500 }, metrics = { "train_loss", "test_accuracy" },
  title = "Fashion-MNIST, logistic, iid, I = 5, 10, 20" })
fedlab.csv(all, "fedda_fmnist_local_steps.csv")

-- the paper's claims (Figs. 7–10; docs/lua-api.md, "Claims"), training loss at round 500, mean over seeds
for _, v in ipairs({ "FedDA-1-1", "FedDA-1-2", "FedDA-2-1", "FedDA-2-2" }) do
  fedlab.claim{ text = "the framework benefits from more local steps (" .. v .. ": training loss falls from I = 5 to 10 to 20)", source = "FedDA Fig. 10",
    runs = all, metric = "train_loss", order = { v .. " I=20", v .. " I=10", v .. " I=5" }, direction = "increasing", at = rounds, seeds = "mean" }
end
for _, I in ipairs({ 5, 10, 20 }) do
  fedlab.claim{ text = "FedDA-2-1 beats Local-AMSGrad (I = " .. I .. ", training loss)", source = "FedDA Fig. 8", runs = all,
    metric = "train_loss", order = { "FedDA-2-1 I=" .. I, "Local-AMSGrad I=" .. I }, direction = "increasing", at = rounds, seeds = "mean" }
  fedlab.claim{ text = "FedDA-2-x beats FedCM (I = " .. I .. ", training loss)", source = "FedDA Fig. 7", runs = all,
    metric = "train_loss", order = { { "FedDA-2-1 I=" .. I, "FedDA-2-2 I=" .. I }, "FedCM I=" .. I }, direction = "increasing", at = rounds, seeds = "mean" }
end
