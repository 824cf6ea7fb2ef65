-- The FedDA paper's CIFAR-10 experiments on CIFAR-10 (Wu et al., Secs. 6.2 and 8.3, Fig. 2:
-- homogeneous, Fig. 11: heterogeneous): the 4-layer CNN, FedDA-MVR and FedDA-2-1 against the
-- baselines. CIFAR-10 is not on the test machine; the substitutes that run everywhere are
-- scripts/fedda_fmnist_cnn_paper.lua and scripts/fedda_fmnist_cnn.lua (Fashion-MNIST).
--
--   fedlab run scripts/fedda_cifar10_cnn.lua --set cifar=/abs/path/cifar-10-batches-bin
--
-- Data: the "CIFAR-10 binary version" of the CIFAR page (https://www.cs.toronto.edu/~kriz/cifar.html):
-- cifar-10-batches-bin/ with data_batch_1..5.bin and test_batch.bin (50,000 + 10,000 images,
-- 32×32, R, G, B planes scaled to [0, 1]). Relative paths resolve against this script's
-- directory: give an absolute one.
--
-- The paper's setting (notes 003, Secs. 3.2 and 3.4):
--   * Fig. 2: the 50,000 training images split uniformly at random over 10 clients, all of them
--     every round; Fig. 11: 10 clients, client i holding 80 % of class i (fedlab's "dominant"
--     partition, ρ = 0.8). The original test set.
--   * model: "a 4-layer CNN with 64 filters per layer" (Sec. 6.2; no further details): 4 × [conv
--     3×3, 64 filters, padding 1, ReLU, max-pool 2] on 3 input channels, then a linear layer
--     (32 → 16 → 8 → 4 → 2: 256 → 10), in float32; no batch normalization (not stated).
--   * T = 20,000 steps with I = 5 local steps (4,000 rounds), minibatch 16, one seed.
--   * step sizes: the paper's values for each setting (Secs. 8.1.2 and 8.3), not retuned.
-- Left out: FedCM and Local-Adapt (their global learning rates and α conventions are ambiguous
-- in the paper: docs/reproductions.md, FedDA section), FedDA-1-2 and 2-2 (Figs. 5, 10).
local args = fedlab.params{ cifar = "", rounds = 4000, local_steps = 5, batch = 16, eval_every = 100 }

if args.cifar == "" then
  error("CIFAR-10 was not given (the paper's data; this script runs nothing without it).\n" ..
    "Get the \"CIFAR-10 binary version\" from the CIFAR page, https://www.cs.toronto.edu/~kriz/cifar.html\n" ..
    "(cifar-10-binary.tar.gz), unpack it and give the directory holding data_batch_1.bin … test_batch.bin:\n" ..
    "  fedlab run scripts/fedda_cifar10_cnn.lua --set cifar=/path/to/cifar-10-batches-bin\n" ..
    "(an absolute path; Hugging Face's cifar10 Parquet files are read by fedlab.data.parquet, docs/data.md).\n" ..
    "The Fashion-MNIST substitute that runs here: scripts/fedda_fmnist_cnn_paper.lua", 0)
end

local I, B = args.local_steps, args.batch
local metrics = { "train_loss", "train_accuracy", "test_loss", "test_accuracy" }
local cnn = fedlab.loss.cnn{ in_channels = 3, channels = { 64, 64, 64, 64 }, kernel = 3, padding = { 1 }, pool = 2,
  dense = {}, precision = "float32" }

-- the paper's hyper-parameters: homogeneous CIFAR-10 (Sec. 8.1.2) and heterogeneous (Sec. 8.3)
local function algorithms(hetero)
  return {
    fedlab.algo.fedda_mvr{ lr = 0.02, w = hetero and 1e4 or 1e5, c = 1e6, beta = 0.999, eps = 0.01, label = "FedDA-MVR" },
    fedlab.algo.fedda_2_1{ lr = 0.001, alpha = 0.9, beta = 0.999, eps = 0.01, label = "FedDA-2-1" },
    fedlab.algo.fedavg{ eta_c = hetero and 0.01 or 0.005, label = "FedAvg" },
    fedlab.algo.fedadam{ eta_c = 0.001, eta_s = 0.002, beta1 = 0.9, beta2 = 0.999, label = "FedAdam" },
    fedlab.algo.local_amsgrad{ eta_c = 0.001, beta1 = 0.9, beta2 = 0.999, label = "Local-AMSGrad" },
    fedlab.algo.stem{ lr = 0.1, w = 100, c = 2000, label = "STEM" },
    fedlab.algo.mime_mvr{ lr = 0.1, w = 100, c = 2000, label = "MIME-MVR" },
  }
end

for _, s in ipairs({
  { name = "Fig. 2: iid, 10 clients", partition = "iid", file = "iid", hetero = false },
  { name = "Fig. 11: 80 %-dominant, 10 clients", partition = "dominant", file = "dominant", hetero = true },
}) do
  local data = fedlab.data.cifar{ dir = args.cifar, classes = 10, clients = 10, partition = s.partition,
    dominant = 0.8, seed = 1 }
  local info = fedlab.info(data)
  print(string.format("CIFAR-10 (%s), %s: %d clients, %d training and %d test images of %d features", args.cifar,
    s.partition, info.clients, info.samples, info.test_samples, info.features))
  local problem = fedlab.problem{ data = data, loss = cnn }
  local runs = fedlab.compare{ problem = problem, rounds = args.rounds, local_steps = I, batch = B,
    seeds = { 1 }, eval_every = args.eval_every, algorithms = algorithms(s.hetero), metrics = metrics, name = s.name }
  fedlab.table(runs, { transpose = true, title = string.format("CIFAR-10, the FedDA paper's 4-layer CNN (64 filters), %s, I = %d, batch %d", s.name, I, B) })
  fedlab.csv(runs, "fedda_cifar10_" .. s.file .. ".csv")
  fedlab.plot(runs, { metric = "train_loss", log = true, file = "fedda_cifar10_" .. s.file .. "_train_loss", title = s.name })
  fedlab.plot(runs, { metric = "test_accuracy", file = "fedda_cifar10_" .. s.file .. "_test_accuracy", title = s.name })
end
