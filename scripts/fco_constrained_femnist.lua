-- The FCO paper's constrained experiments on the paper's data (Yuan, Zaheer & Reddi, App. B.5,
-- Figs. 13-15): FedDualAvg, FedDualAvg-OSP, FedMiD and FedMiD-OSP with a hard constraint
-- ψ = χ_C on FEMNIST-10 (Figs. 13, 14) and FEMNIST-62 (Fig. 15). FEMNIST is not on the test
-- machine; the substitute that runs everywhere is scripts/fco_constrained.lua (Fashion-MNIST).
--
--   fedlab run scripts/fco_constrained_femnist.lua --set femnist=/abs/path/leaf/data/femnist/data \
--     --set emnist=/abs/path/gzip
--
-- Data (either or both; relative paths resolve against this script's directory):
--   * `femnist`: LEAF's FEMNIST (git clone LEAF, cd data/femnist, ./preprocess.sh -s niid
--     --sf 1.0 -k 0 -t sample), the directory holding train/ and test/. Figs. 13-14: FEMNIST-10,
--     the digits of the writers (labels = {0, ..., 9}: each writer keeps its digits, in file
--     order) of a seeded random 338 writers (`--set clients10=K`; the paper: the first 10 % of
--     TFF's 3,383 writers), each with its LEAF test split. Fig. 15: FEMNIST-62, every writer a
--     client (`--set writers=K` for a seeded random K; 0 = all, the paper's "full set").
--   * `emnist`: NIST's EMNIST release in IDX form (the "gzip" directory of
--     https://www.nist.gov/itl/products-and-services/emnist-dataset), its emnist-digits-* files,
--     for Figs. 13-14 when `femnist` is not given (with it, it is not used, and the script says
--     so). The IDX release names no writers, so FEMNIST-10 there is a seeded random subset of
--     EMNIST's digits of about the paper's size (10 % of TFF's 341,873 training and 40,832 test
--     digits: 34,187 and 4,083) over 338 clients by a Dirichlet(0.5) partition.
--
-- The paper's setting (notes 004, Sec. 3.4):
--   * Fig. 13: multinomial logistic regression 784 → 10 (a Keras Dense layer: kernel and bias),
--     ‖W‖₁ ≤ 1000; Fig. 14: the same, ‖W‖₂ ≤ 10; Fig. 15: the 784-200-200-62 ReLU network, each
--     of the three kernels in its own ℓ1 ball of radius 1000 (biases unconstrained).
--   * 10 clients per round, batch 10, 10 local epochs (K = 10·⌈n_m/10⌉), 5,000 rounds, training
--     loss evaluated every 100 rounds; η_c ∈ {0.001, 0.003, 0.01, 0.03, 0.1} × η_s ∈ {0.01, 0.03,
--     0.1, 0.3, 1} per algorithm and figure, selected by the mean training loss over the last 10
--     evaluations. `--set eta_c=… --set eta_s=…` runs one pair instead of the grid.
--   * client weights ∝ n_m over the sampled clients (the code; the paper writes 1/|S_r|); the
--     network starts from fedlab's default initialization (Kaiming uniform; the code: Keras's
--     Glorot uniform), the logistic model from 0.
local args = fedlab.params{ femnist = "", emnist = "", writers = 0, rounds = 5000, eval_every = 100, epochs = 10,
  per_round = 10, clients10 = 338, train10 = 34187, test10 = 4083, eta_c = 0, eta_s = 0 }

if args.femnist == "" and args.emnist == "" then
  error("FEMNIST was not given (the paper's data; this script runs nothing without it).\n" ..
    "Get it with LEAF's scripts (git clone https://github.com/TalwalkarLab/leaf;\n" ..
    "cd leaf/data/femnist; ./preprocess.sh -s niid --sf 1.0 -k 0 -t sample) and give the directory holding train/ and test/\n" ..
    "(Figs. 13-14 on the writers' digits, FEMNIST-10; Fig. 15 on all 62 classes, FEMNIST-62):\n" ..
    "  fedlab run scripts/fco_constrained_femnist.lua --set femnist=/path/to/leaf/data/femnist/data\n" ..
    "Without it, Figs. 13-14 run on NIST's EMNIST release in IDX form (the \"gzip\" directory, with emnist-digits-*,\n" ..
    "from https://www.nist.gov/itl/products-and-services/emnist-dataset; no writers: Dirichlet clients):\n" ..
    "  fedlab run scripts/fco_constrained_femnist.lua --set emnist=/path/to/gzip\n" ..
    "(absolute paths; both may be given). The Fashion-MNIST substitute that runs here: scripts/fco_constrained.lua", 0)
end
if (args.eta_c == 0) ~= (args.eta_s == 0) then
  error("give both eta_c and eta_s (one pair instead of the paper's grid), or neither", 0)
end
local grid = { eta_c = { 0.001, 0.003, 0.01, 0.03, 0.1 }, eta_s = { 0.01, 0.03, 0.1, 0.3, 1 } }
if args.eta_c ~= 0 then grid = { eta_c = { args.eta_c }, eta_s = { args.eta_s } } end

local cases = {}
local digits, source
if args.femnist ~= "" then
  digits = fedlab.data.leaf{ path = args.femnist .. "/train", test = args.femnist .. "/test", classes = 10,
    labels = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, clients = args.clients10, seed = 1 }
  source = "LEAF writers' digits"
  if args.emnist ~= "" then
    print("Figs. 13-14 (FEMNIST-10) run on LEAF's FEMNIST writers' digits; emnist=" .. args.emnist .. " is not used")
  end
else
  digits = fedlab.data.idx{ dir = args.emnist, prefix = "emnist-digits-", transpose = true, classes = 10,
    partition = "dirichlet", alpha = 0.5, clients = args.clients10, train_samples = args.train10,
    test_samples = args.test10, seed = 1 }
  source = "EMNIST digits"
end
table.insert(cases, { name = "Fig. 13: FEMNIST-10 (" .. source .. "), logistic, ‖W‖₁ ≤ 1000", data = digits,
  loss = fedlab.loss.multinomial{}, reg = fedlab.reg.l1_ball{ radius = 1000 }, file = "fco_fig13_femnist10_l1" })
table.insert(cases, { name = "Fig. 14: FEMNIST-10 (" .. source .. "), logistic, ‖W‖₂ ≤ 10", data = digits,
  loss = fedlab.loss.multinomial{}, reg = fedlab.reg.l2_ball{ radius = 10 }, file = "fco_fig14_femnist10_l2" })
if args.femnist ~= "" then
  local femnist = fedlab.data.leaf{ path = args.femnist .. "/train", test = args.femnist .. "/test", classes = 62,
    clients = args.writers, seed = 1 }
  table.insert(cases, { name = "Fig. 15: FEMNIST-62 (LEAF writers), 784-200-200-62 net, every ‖W^[l]‖₁ ≤ 1000",
    data = femnist, loss = fedlab.loss.mlp{ hidden = { 200, 200 } }, reg = fedlab.reg.l1_ball{ radius = 1000 },
    file = "fco_fig15_femnist62_mlp" })
else
  print("Fig. 15 (FEMNIST-62) is not run: it needs LEAF's FEMNIST, --set femnist=/path/to/leaf/data/femnist/data")
end

local metrics = { "train_loss", "train_accuracy", "test_accuracy" }
for _, c in ipairs(cases) do
  local info = fedlab.info(c.data)
  print(string.format("%s: %d clients, %d training and %d test images, %d classes", c.name, info.clients,
    info.samples, info.test_samples, info.classes))
  local problem = fedlab.problem{ data = c.data, loss = c.loss, reg = c.reg, weighted = true }
  local sw = fedlab.sweep{ problem = problem, rounds = args.rounds, clients_per_round = args.per_round, batch = 10,
    epochs = args.epochs, eval_every = args.eval_every, seeds = { 1 }, metrics = metrics, grid = grid,
    select = { metric = "train_loss", mode = "min", last = 10 * args.eval_every },
    algorithms = { fedlab.algo.feddualavg{ label = "FedDualAvg" }, fedlab.algo.feddualavg_osp{ label = "FedDualAvg-OSP" },
      fedlab.algo.fedmid{ label = "FedMiD" }, fedlab.algo.fedmid_osp{ label = "FedMiD-OSP" } } }
  fedlab.sweep_table(sw, { title = c.name .. ": mean training loss over the last 10 evaluations" })
  local best = {}
  for _, b in ipairs(sw.best) do
    for _, r in ipairs(b.runs) do table.insert(best, r) end
  end
  fedlab.table(best, { transpose = true, title = c.name .. ": selected step sizes" })
  fedlab.csv(sw.runs, c.file .. ".csv")
  for _, m in ipairs(metrics) do
    fedlab.plot(sw, { metric = m, file = c.file .. "_" .. m, log = (m == "train_loss"), title = c.name })
  end
end
