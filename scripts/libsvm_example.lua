-- Federated sparse logistic regression on a binary LIBSVM file.
--   fedlab run scripts/libsvm_example.lua [--set path=/data/rcv1_train.binary.bz2]
-- `path` (from --set, or the default below) is any binary-label LIBSVM/svmlight file, plain or
-- compressed (.gz, .bz2, .xz, .zst are recognized by content), e.g. rcv1_train.binary.bz2 or
-- news20.binary.bz2 from https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html
-- (relative paths resolve against this script's directory, so give an absolute one). The default is Debian's liblinear-tools copy of
-- heart_scale (270 samples, 13 features): `apt-get install liblinear-tools`.
-- The samples are split over 20 clients by a Dirichlet(0.5) draw over the labels (use
-- partition = "iid" for a natural even split), each feature is divided by its largest |value|
-- on the training samples (maxabs keeps sparsity), and 20% of each client's samples are held out.
local path = fedlab.args.path or "/usr/share/doc/liblinear-tools/examples/heart_scale"

local ok, data = pcall(function()
  return fedlab.data.svmlight{ path = path, classes = 2, partition = "dirichlet", alpha = 0.5,
    clients = 20, test_fraction = 0.2, scaling = "maxabs", seed = 1 }
end)
if not ok then
  error("cannot load the LIBSVM file " .. path .. ": " .. tostring(data) ..
    "\nGive a binary LIBSVM file with --set path=FILE (see the comment at the top of scripts/libsvm_example.lua).", 0)
end
local info = fedlab.info(data)
print(string.format("%s: %d clients, %d features", path, info.clients, info.features))

local problem = fedlab.problem{ data = data, loss = fedlab.loss.logistic{ intercept = true },
  reg = fedlab.reg.l1{ lambda = 1e-3 } }
local runs = fedlab.compare{ problem = problem, rounds = 100, clients_per_round = 5, local_steps = 10,
  batch = 8, eval_every = 10, seeds = { 1, 2, 3 },
  metrics = { "train_loss", "test_loss", "test_accuracy", "density" },
  algorithms = { fedlab.algo.feddualavg{ eta_c = 0.5, label = "FedDualAvg" },
                 fedlab.algo.fedmid{ eta_c = 0.5, label = "FedMiD" },
                 fedlab.algo.fedavg{ eta_c = 0.5, label = "FedAvg" } } }
fedlab.table(runs, { rounds = { 0, 10, 50, 100 }, title = "sparse logistic regression on " .. path })
