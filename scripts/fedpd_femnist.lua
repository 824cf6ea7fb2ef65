-- The FedPD paper's neural-network experiments on the paper's data (Zhang et al., Sec. 4 /
-- App. H.2, Figs. 7-8, the PyTorch runs): FEMNIST, the code's CNN, FedAvg vs FedProx vs FedPD
-- with communication skipping. FEMNIST is not on the test machine; the substitute that runs
-- everywhere is scripts/fedpd_fmnist_cnn.lua (Fashion-MNIST).
--
--   fedlab run scripts/fedpd_femnist.lua --set femnist=/abs/path/leaf/data/femnist/data
--   fedlab run scripts/fedpd_femnist.lua --set femnist_parquet='/abs/path/femnist/*.parquet'
--
-- Data: `femnist` is the directory LEAF's scripts write (git clone LEAF, cd data/femnist,
-- ./preprocess.sh -s niid --sf 1.0 -k 0 -t sample), holding train/ and test/ (the per-writer
-- sample split, as the paper's code used); or `femnist_parquet` is Flower Datasets'
-- `flwrlabs/femnist` from Hugging Face (Parquet: image, writer_id, character; one split, so
-- 10 % of each writer's images are held out, LEAF's default). Relative paths resolve against
-- this script's directory: give absolute ones.
--
-- The paper's setting (notes 002, Secs. 4.2-4.3):
--   * 100 writers (the paper does not say which: a seeded random 100 here, `--set writers=K`;
--     0 = every writer), 62 classes, each writer's LEAF test split as its test set.
--   * model: the code's CNNFEMnist, conv 5×5 ×32 (padding 2) → ReLU → max-pool 2 → conv 5×5 ×64
--     (padding 2) → ReLU → max-pool 2 → 3136 → 2048 → 62, in float32, PyTorch's default
--     initialization (Kaiming uniform).
--   * T = 1 000 rounds, Q = 300 local SGD steps of minibatch 2, full participation, uniform
--     averaging; FedAvg step 0.001 (without the code's momentum 0.5), FedProx 0.01 with ρ = 1,
--     FedPD η₁ = 0.01 with η = 1 (the code's μ = 1/η = 1) and skip probability p = 0, 0.5, 0.25.
-- Departure: the paper's 90 agents (agents 1-10 holding two writers each) are 100 clients here,
-- one per writer (fedlab's natural partition keeps writers apart).
--
-- Memory: FedPD keeps per-client state for every writer, and this model has 6,603,710
-- parameters: the plan's estimate is 30.7 GiB for one FedPD run of 100 clients (61.4 GiB at
-- --jobs 2), refused where that is more than --max-memory or half the available memory. So the
-- paper's setting needs --jobs 1 on a machine with 64 GB; `--set writers=30` fits in 9.2 GiB.
-- Cost: about 0.1 GFLOP a sample (forward and backward), so one round of the 100 writers'
-- 30,000 local steps of batch 2 is about 6 TFLOP.
local args = fedlab.params{ femnist = "", femnist_parquet = "", writers = 100, rounds = 1000,
  local_steps = 300, eval_every = 10 }

if args.femnist == "" and args.femnist_parquet == "" then
  error("FEMNIST was not given (the paper's data; this script runs nothing without it).\n" ..
    "Get it with LEAF's scripts (git clone https://github.com/TalwalkarLab/leaf; cd leaf/data/femnist;\n" ..
    "./preprocess.sh -s niid --sf 1.0 -k 0 -t sample) and give the directory holding train/ and test/:\n" ..
    "  fedlab run scripts/fedpd_femnist.lua --set femnist=/path/to/leaf/data/femnist/data\n" ..
    "or get Flower Datasets' flwrlabs/femnist (Hugging Face, Parquet) and give its files:\n" ..
    "  fedlab run scripts/fedpd_femnist.lua --set femnist_parquet='/path/to/femnist/*.parquet'\n" ..
    "(absolute paths). The Fashion-MNIST substitute that runs here: scripts/fedpd_fmnist_cnn.lua", 0)
end
if args.femnist ~= "" and args.femnist_parquet ~= "" then
  error("give femnist (LEAF) or femnist_parquet (Flower Datasets), not both", 0)
end

local data, source
if args.femnist ~= "" then
  source = "LEAF " .. args.femnist
  data = fedlab.data.leaf{ path = args.femnist .. "/train", test = args.femnist .. "/test", classes = 62,
    clients = args.writers, seed = 1 }
else
  source = "Parquet " .. args.femnist_parquet
  data = fedlab.data.parquet{ path = args.femnist_parquet, image = "image", label = "character",
    client = "writer_id", partition = "natural", classes = 62, clients = args.writers, test_fraction = 0.1, seed = 1 }
end
local info = fedlab.info(data)
print(string.format("FEMNIST (%s): %d writers as clients, %d training and %d test images", source,
  info.clients, info.samples, info.test_samples))

local cnn = fedlab.loss.cnn{ channels = { 32, 64 }, kernel = 5, padding = { 2 }, pool = 2, dense = { 2048 },
  precision = "float32" }
local problem = fedlab.problem{ data = data, loss = cnn }
local runs = fedlab.compare{ problem = problem, rounds = args.rounds, local_steps = args.local_steps, batch = 2,
  seeds = { 1 }, eval_every = args.eval_every,
  metrics = { "train_loss", "train_accuracy", "test_loss", "test_accuracy", "comm_rounds" },
  algorithms = {
    fedlab.algo.fedavg{ eta_c = 0.001, label = "FedAvg" },
    fedlab.algo.fedprox{ eta_c = 0.01, rho = 1, label = "FedProx" },
    fedlab.algo.fedpd{ eta = 1, eta1 = 0.01, label = "FedPD p=0" },
    fedlab.algo.fedpd{ eta = 1, eta1 = 0.01, p = 0.5, label = "FedPD p=0.5" },
    fedlab.algo.fedpd{ eta = 1, eta1 = 0.01, p = 0.25, label = "FedPD p=0.25" },
  } }
fedlab.table(runs, { transpose = true,
  title = string.format("FEMNIST, the FedPD code's CNN, %d writers, Q = %d, batch 2", info.clients, args.local_steps) })
fedlab.csv(runs, "fedpd_femnist.csv")
fedlab.plot(runs, { metric = "train_loss", log = true, file = "fedpd_femnist_train_loss" })
fedlab.plot(runs, { metric = "test_accuracy", x = "comm_rounds", file = "fedpd_femnist_test_accuracy" })
