-- Bao, Crawshaw, Luo & Liu (ICML 2022), Figs. 3-4 on the paper's data: federated sparse
-- multinomial logistic regression on EMNIST-62 (Fig. 3) and EMNIST-10 (Fig. 4, App. F),
-- Fast-FedDA, C-FedDA and MC-FedDA against FedDualAvg and FedMiD. EMNIST is not on the test
-- machine; the substitute that runs everywhere is scripts/bao_fmnist_sparse_logistic.lua.
--
--   fedlab run scripts/bao_emnist_sparse_logistic.lua --set emnist=/abs/path/gzip
--   fedlab run scripts/bao_emnist_sparse_logistic.lua --set femnist=/abs/path/leaf/data/femnist/data
--
-- Data (either or both; relative paths resolve against this script's directory):
--   * `emnist`: NIST's EMNIST release in IDX form (the "gzip" directory of
--     https://www.nist.gov/itl/products-and-services/emnist-dataset), with emnist-byclass-* (62
--     classes: Fig. 3) and emnist-digits-* (10 classes: Fig. 4); the images are stored transposed
--     and read with transpose = true. The IDX release names no writers, so the clients are a
--     Dirichlet(0.5) partition of seeded random subsets of the paper's sizes (below).
--   * `femnist`: LEAF's FEMNIST (git clone LEAF, cd data/femnist, ./preprocess.sh -s niid --sf 1.0
--     -k 0 -t sample), the directory holding train/ and test/: the paper's own clients, one per
--     writer, each with its LEAF test split: for Fig. 3 a seeded random 379 writers, for Fig. 4
--     the digits of the writers (labels = {0, ..., 9}: each writer keeps its digits, in file
--     order; TFF's EMNIST-10 is the same writers' digits) of a seeded random 367 writers. Given
--     with `emnist`, it replaces the Dirichlet clients of both figures (the script says so).
--
-- The paper's setting (notes 001, Sec. 3.3; the authors' code where the paper is silent):
--   * EMNIST-62: 379 clients, 73,421 training and 8,346 test images, K = 10 local steps,
--     R = 75,000 rounds; EMNIST-10: 367 clients, 36,259 and 4,095 images, K = 40, R = 15,000.
--   * 36 clients per round, batch 25, client weights ∝ n_k renormalized over the sampled clients,
--     W ∈ R^{784×c} without bias, W₀ = 0, λ = 1e-4 (ℓ1 on every entry), evaluation every 150
--     rounds on the pooled training and test sets.
--   * FedDualAvg and FedMiD η_c = 0.01, η_s = 1; Fast-FedDA, C-FedDA, MC-FedDA μ = 0.001, γ = 25
--     (the code's constant weights, L = γ); MC-FedDA λ = 4e-4, 2e-4, then 1e-4 (the code's
--     sequence; the paper's App. F gives 2.25e-4, 1.5e-4, 1e-4), 5 stages of R/5 rounds, each
--     restarted at the previous stage's last iterate (the code).
local args = fedlab.params{ emnist = "", femnist = "", rounds62 = 75000, rounds10 = 15000, eval_every = 150,
  per_round = 36, clients62 = 379, clients10 = 367, train62 = 73421, test62 = 8346, train10 = 36259, test10 = 4095 }

if args.emnist == "" and args.femnist == "" then
  error("EMNIST was not given (the paper's data; this script runs nothing without it).\n" ..
    "Get NIST's EMNIST release in IDX form (the \"gzip\" directory, with emnist-byclass-* and emnist-digits-*)\n" ..
    "from https://www.nist.gov/itl/products-and-services/emnist-dataset and give that directory:\n" ..
    "  fedlab run scripts/bao_emnist_sparse_logistic.lua --set emnist=/path/to/gzip\n" ..
    "or, for both with the writers as clients (Fig. 4 on their digits), LEAF's FEMNIST (git clone https://github.com/TalwalkarLab/leaf;\n" ..
    "cd leaf/data/femnist; ./preprocess.sh -s niid --sf 1.0 -k 0 -t sample), the directory holding train/ and test/:\n" ..
    "  fedlab run scripts/bao_emnist_sparse_logistic.lua --set femnist=/path/to/leaf/data/femnist/data\n" ..
    "(absolute paths). The Fashion-MNIST substitute that runs here: scripts/bao_fmnist_sparse_logistic.lua", 0)
end

local figures = {}
if args.femnist ~= "" then
  table.insert(figures, { name = "Fig. 3: EMNIST-62 (LEAF FEMNIST writers)", file = "fig3_emnist62", classes = 62,
    K = 10, R = args.rounds62, data = function()
      return fedlab.data.leaf{ path = args.femnist .. "/train", test = args.femnist .. "/test", classes = 62,
        clients = args.clients62, seed = 1 }
    end })
elseif args.emnist ~= "" then
  table.insert(figures, { name = "Fig. 3: EMNIST-62 (byclass, Dirichlet clients)", file = "fig3_emnist62", classes = 62,
    K = 10, R = args.rounds62, data = function()
      return fedlab.data.idx{ dir = args.emnist, prefix = "emnist-byclass-", transpose = true, classes = 62,
        partition = "dirichlet", alpha = 0.5, clients = args.clients62, train_samples = args.train62,
        test_samples = args.test62, seed = 1 }
    end })
end
if args.femnist ~= "" then
  if args.emnist ~= "" then
    print("Figs. 3-4 run on LEAF's FEMNIST writers; emnist=" .. args.emnist .. " is not used")
  end
  table.insert(figures, { name = "Fig. 4: EMNIST-10 (LEAF FEMNIST writers' digits)", file = "fig4_emnist10", classes = 10,
    K = 40, R = args.rounds10, data = function()
      return fedlab.data.leaf{ path = args.femnist .. "/train", test = args.femnist .. "/test", classes = 10,
        labels = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, clients = args.clients10, seed = 1 }
    end })
else
  table.insert(figures, { name = "Fig. 4: EMNIST-10 (digits, Dirichlet clients)", file = "fig4_emnist10", classes = 10,
    K = 40, R = args.rounds10, data = function()
      return fedlab.data.idx{ dir = args.emnist, prefix = "emnist-digits-", transpose = true, classes = 10,
        partition = "dirichlet", alpha = 0.5, clients = args.clients10, train_samples = args.train10,
        test_samples = args.test10, seed = 1 }
    end })
end

local metrics = { "train_loss", "test_loss", "train_accuracy", "test_accuracy", "density" }
for _, f in ipairs(figures) do
  if f.R < 5 then
    error(string.format("%s: %d rounds; MC-FedDA runs 5 stages of R/5 rounds, so R must be at least 5", f.name, f.R), 0)
  end
  local data = f.data()
  local info = fedlab.info(data)
  print(string.format("%s: %d clients, %d training and %d test images, %d classes", f.name, info.clients,
    info.samples, info.test_samples, info.classes))
  local problem = fedlab.problem{ data = data, loss = fedlab.loss.multinomial{ bias = false },
    reg = fedlab.reg.l1{ lambda = 1e-4 }, weighted = true }
  local stage = math.floor(f.R / 5)
  local runs = fedlab.compare{ problem = problem, rounds = f.R, clients_per_round = args.per_round,
    local_steps = f.K, batch = 25, seeds = { 1 }, eval_every = args.eval_every, metrics = metrics, name = f.name,
    algorithms = {
      fedlab.algo.fastfedda{ mu = 0.001, L = 25, weights = "constant", label = "Fast-FedDA" },
      fedlab.algo.cfedda{ mu = 0.001, L = 25, weights = "constant", label = "C-FedDA" },
      fedlab.algo.mcfedda{ mu = 0.001, L = 25, weights = "constant", lambda0 = 4e-4,
        stage_rounds = { stage, stage, stage, stage }, restart = "last", label = "MC-FedDA" },
      fedlab.algo.feddualavg{ eta_c = 0.01, eta_s = 1, label = "FedDualAvg" },
      fedlab.algo.fedmid{ eta_c = 0.01, eta_s = 1, label = "FedMiD" },
    } }
  fedlab.table(runs, { transpose = true, title = f.name .. ", sparse logistic regression, λ = 1e-4, K = " .. f.K })
  fedlab.csv(runs, "bao_" .. f.file .. ".csv")
  for _, m in ipairs({ "train_loss", "test_accuracy" }) do
    fedlab.plot(runs, { metric = m, log = (m == "train_loss"), file = "bao_" .. f.file .. "_" .. m, title = f.name })
  end
end
