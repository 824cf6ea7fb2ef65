-- SUBSTITUTE for the FedDA paper's Fig. 4 (PathMNIST, the four FedDA variants with ℓ1: train and
-- test accuracy and density): the four variants FedDA-1-1 (MVR), 1-2, 2-1, 2-2 with ψ = λ‖w‖₁ on
-- Fashion-MNIST with the multinomial logistic model (PathMNIST is not available here, and the
-- paper's 4-layer CNN is replaced by the convex model).
--
-- 10 clients, iid split (the paper's PathMNIST split), full participation, I = 5, batch 16,
-- 500 rounds, seeds 1, 2, λ = 0.001 (the value of scripts/fedda_fmnist_l1.lua where ℓ1 keeps
-- the accuracy near the unregularized one). Step sizes: those tuned without ℓ1
-- (scripts/fedda_fmnist_local_steps.lua): 1-1 lr 0.1, 1-2 lr 1, 2-1 lr 0.003, 2-2 lr 0.01; the
-- MVR variants' c is the paper's (α ≡ 1, as the paper's settings give). Density: |w| > 0.01.
--
-- Run time: see the table "Run times" in docs/reproductions.md.
--
--   go run ./cmd/fedlab run scripts/fedda_fmnist_variants_l1.lua --out /tmp/fedda_variants_l1

local problem = fedlab.problem{ data = fedlab.data.fashion_mnist{ clients = 10, partition = "iid" },
  loss = fedlab.loss.multinomial{}, reg = fedlab.reg.l1{ lambda = 0.001 } }
local runs = fedlab.compare{ problem = problem, rounds = 500, local_steps = 5, batch = 16, seeds = { 1, 2 },
  eval_every = 50, metrics = { "objective", "train_accuracy", "test_accuracy", "density" },
  algorithms = {
    fedlab.algo.fedda_mvr{ lr = 0.1, label = "FedDA-1-1 (MVR)" },
    fedlab.algo.fedda_1_2{ lr = 1, label = "FedDA-1-2" },
    fedlab.algo.fedda_2_1{ lr = 0.003, label = "FedDA-2-1" },
    fedlab.algo.fedda_2_2{ lr = 0.01, label = "FedDA-2-2" },
  } }
fedlab.table(runs, { rounds = { 50, 100, 250, 500 }, transpose = true,
  title = "Fashion-MNIST, logistic + ℓ1 (λ = 0.001), iid, the four FedDA variants" })
fedlab.csv(runs, "fedda_variants_l1.csv")

-- the paper's claims (Fig. 4; docs/lua-api.md, "Claims"), on the mean over seeds
for _, label in ipairs({ "FedDA-1-1 (MVR)", "FedDA-1-2", "FedDA-2-1", "FedDA-2-2" }) do
  fedlab.claim{ text = "all variants perform well with ℓ1 (" .. label .. ": test accuracy ≥ 0.8 at round 500)", source = "FedDA Fig. 4",
    runs = runs, label = label, metric = "test_accuracy", at_least = 0.8, at = 500, seeds = "mean" }
end
fedlab.claim{ text = "FedDA-MVR gives the sparsest model (lowest density at round 500)", source = "FedDA Fig. 4", runs = runs,
  metric = "density", order = { "FedDA-1-1 (MVR)", { "FedDA-1-2", "FedDA-2-1", "FedDA-2-2" } }, direction = "increasing", at = 500, seeds = "mean" }
fedlab.plot(runs, { metric = "density", file = "fedda_variants_l1_density" })
