-- Throughput of real FedAvg rounds on Fashion-MNIST with a CNN: 50 of 500 clients per round, 5
-- local steps of batch 16 (4,000 samples per round), 5 rounds, no evaluation (divergence =
-- math.huge: no training-loss pass either). Time it with
-- --workers 1 and --workers 2 to compare one core with two (docs/performance.md):
--   /usr/bin/time -f '%e s wall, %U s user' fedlab run scripts/bench_fedavg_round.lua --workers 1 --jobs 1 --quiet
-- Arguments (--set): model = "lenet5" | "cnn4" (the FedDA paper's 4-layer CNN), precision =
-- "float32" | "float64".
local model = fedlab.args.model or "cnn4"
local precision = fedlab.args.precision or "float32"
local loss
if model == "lenet5" then
  loss = fedlab.loss.cnn{ precision = precision }
else
  loss = fedlab.loss.cnn{ channels = { 32, 32, 32, 32 }, kernel = 3, padding = { 1 }, pool = 2, dense = {}, precision = precision }
end
local data = fedlab.data.fashion_mnist{ clients = 500, partition = "iid", seed = 1 }
local problem = fedlab.problem{ data = data, loss = loss }
local runs = fedlab.compare{ problem = problem, rounds = 5, clients_per_round = 50, local_steps = 5, batch = 16,
  eval_every = 5, metrics = {}, divergence = math.huge, init = "normal", init_scale = 0.1,
  algorithms = { fedlab.algo.fedavg{ eta_c = 0.05 } } }
print(string.format("%s (%s): %d rounds of 50 clients × 5 steps × 16 samples = %d samples", model, precision, 5, 5 * 50 * 5 * 16))
