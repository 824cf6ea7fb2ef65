-- The FedDA paper's FEMNIST experiment on FEMNIST (Wu et al., Sec. 6.2, Fig. 3): the 4-layer
-- CNN, 500 writers, 50 per round, FedDA-MVR and FedDA-2-1 against the baselines. FEMNIST is not
-- on the test machine; the substitutes that run everywhere are the 500-client settings of
-- scripts/fedda_fmnist_cnn_paper.lua and scripts/fedda_fmnist_cnn.lua (Fashion-MNIST).
--
--   fedlab run scripts/fedda_femnist_cnn.lua --set femnist=/abs/path/leaf/data/femnist/data
--   fedlab run scripts/fedda_femnist_cnn.lua --set femnist_parquet='/abs/path/femnist/*.parquet'
--
-- Data: `femnist` is the directory LEAF's scripts write (git clone LEAF, cd data/femnist,
-- ./preprocess.sh -s niid --sf 1.0 -k 0 -t sample), holding train/ and test/; or
-- `femnist_parquet` is Flower Datasets' `flwrlabs/femnist` from Hugging Face (Parquet: image,
-- writer_id, character; one split, so 10 % of each writer's images are held out, LEAF's
-- default). Relative paths resolve against this script's directory: give absolute ones.
--
-- The paper's setting (notes 003, Sec. 3.2):
--   * 500 of FEMNIST's 3,550 writers sampled at random (seeded; `--set writers=K`), each a
--     client, 50 sampled per round; 62 classes (the paper does not state the class count; LEAF's
--     FEMNIST has 62).
--   * model: "a 4-layer CNN with 64 filters per layer" (no further details): 4 × [conv 3×3, 64
--     filters, padding 1, ReLU, max-pool 2] (28 → 14 → 7 → 3 → 1), then a linear layer 64 → 62,
--     in float32; no batch normalization (not stated).
--   * T = 20,000 steps with I = 5 local steps (4,000 rounds), minibatch 16, one seed.
--   * step sizes: the paper's FEMNIST values (Sec. 8.1.2), not retuned.
-- Left out: FedCM (no global learning rate given for FEMNIST) and Local-Adapt (two conflicting
-- entries), as in docs/reproductions.md.
local args = fedlab.params{ femnist = "", femnist_parquet = "", writers = 500, per_round = 50, rounds = 4000,
  local_steps = 5, batch = 16, eval_every = 100 }

if args.femnist == "" and args.femnist_parquet == "" then
  error("FEMNIST was not given (the paper's data; this script runs nothing without it).\n" ..
    "Get it with LEAF's scripts (git clone https://github.com/TalwalkarLab/leaf; cd leaf/data/femnist;\n" ..
    "./preprocess.sh -s niid --sf 1.0 -k 0 -t sample) and give the directory holding train/ and test/:\n" ..
    "  fedlab run scripts/fedda_femnist_cnn.lua --set femnist=/path/to/leaf/data/femnist/data\n" ..
    "or get Flower Datasets' flwrlabs/femnist (Hugging Face, Parquet) and give its files:\n" ..
    "  fedlab run scripts/fedda_femnist_cnn.lua --set femnist_parquet='/path/to/femnist/*.parquet'\n" ..
    "(absolute paths). The Fashion-MNIST substitute that runs here: scripts/fedda_fmnist_cnn_paper.lua", 0)
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
print(string.format("FEMNIST (%s): %d writers as clients, %d per round, %d training and %d test images", source,
  info.clients, args.per_round, info.samples, info.test_samples))

local cnn = fedlab.loss.cnn{ channels = { 64, 64, 64, 64 }, kernel = 3, padding = { 1 }, pool = 2, dense = {},
  precision = "float32" }
local problem = fedlab.problem{ data = data, loss = cnn }
local runs = fedlab.compare{ problem = problem, rounds = args.rounds, local_steps = args.local_steps,
  batch = args.batch, clients_per_round = args.per_round, seeds = { 1 }, eval_every = args.eval_every,
  metrics = { "train_loss", "train_accuracy", "test_loss", "test_accuracy" },
  algorithms = { -- the paper's FEMNIST hyper-parameters (Sec. 8.1.2)
    fedlab.algo.fedda_mvr{ lr = 0.02, w = 1e5, c = 1e6, beta = 0.999, eps = 0.01, label = "FedDA-MVR" },
    fedlab.algo.fedda_2_1{ lr = 0.001, alpha = 0.9, beta = 0.999, eps = 0.01, label = "FedDA-2-1" },
    fedlab.algo.fedavg{ eta_c = 0.1, label = "FedAvg" },
    fedlab.algo.fedadam{ eta_c = 0.02, eta_s = 0.04, beta1 = 0.9, beta2 = 0.999, label = "FedAdam" },
    fedlab.algo.local_amsgrad{ eta_c = 0.0005, beta1 = 0.9, beta2 = 0.999, label = "Local-AMSGrad" },
    fedlab.algo.stem{ lr = 1, w = 1e4, c = 400, label = "STEM" },
    fedlab.algo.mime_mvr{ lr = 1, w = 1e4, c = 400, label = "MIME-MVR" },
  } }
fedlab.table(runs, { transpose = true, title = string.format(
  "FEMNIST, the FedDA paper's 4-layer CNN (64 filters), %d writers, %d per round, I = %d, batch %d",
  info.clients, args.per_round, args.local_steps, args.batch) })
fedlab.csv(runs, "fedda_femnist.csv")
fedlab.plot(runs, { metric = "train_loss", log = true, file = "fedda_femnist_train_loss" })
fedlab.plot(runs, { metric = "test_accuracy", file = "fedda_femnist_test_accuracy" })
