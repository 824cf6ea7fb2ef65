-- Throughput of real FedAvg rounds on Fashion-MNIST with a CNN: 50 of 500 clients per round, 5
-- local steps of batch 16 (4,000 samples per round), 5 rounds, no evaluation (divergence =
-- math.huge: no training-loss pass either). Time it with
-- --workers 1 and --workers 2 to compare one core with two (docs/performance.md):
--   /usr/bin/time -f '%e s wall, %U s user' fedlab run scripts/bench_fedavg_round.lua --workers 1 --jobs 1 --quiet
-- Arguments (--set): model = "lenet5" | "cnn4" (the FedDA paper's 4-layer CNN), filters = the
-- 4-layer CNN's filters per layer (32), precision = "float32" | "float64", cifar = a directory of
-- CIFAR-10 binary batches to train on instead of Fashion-MNIST (32×32 RGB images; the PyTorch
-- comparison scripts/bench_torch_fedavg.py writes one of random images).
local model = fedlab.args.model or "cnn4"
local precision = fedlab.args.precision or "float32"
local filters = tonumber(fedlab.args.filters or "32")
local in_channels = fedlab.args.cifar and 3 or 1
local loss
if model == "lenet5" then
  loss = fedlab.loss.cnn{ in_channels = in_channels, precision = precision }
else
  loss = fedlab.loss.cnn{ in_channels = in_channels, channels = { filters, filters, filters, filters }, kernel = 3, padding = { 1 },
    pool = 2, dense = {}, precision = precision }
end
local data
if fedlab.args.cifar then
  data = fedlab.data.cifar{ dir = fedlab.args.cifar, classes = 10, clients = 500, partition = "iid", seed = 1 }
else
  data = fedlab.data.fashion_mnist{ clients = 500, partition = "iid", seed = 1 }
end
local problem = fedlab.problem{ data = data, loss = loss }
local runs = fedlab.compare{ problem = problem, rounds = 5, clients_per_round = 50, local_steps = 5, batch = 16,
  eval_every = 5, metrics = {}, divergence = math.huge, init = "normal", init_scale = 0.1,
  algorithms = { fedlab.algo.fedavg{ eta_c = 0.05 } } }
print(string.format("%s (%s): %d rounds of 50 clients × 5 steps × 16 samples = %d samples", model, precision, 5, 5 * 50 * 5 * 16))
