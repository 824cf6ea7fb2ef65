-- one run fails (the local baseline is given a client that does not exist); the other completes
local data = fedlab.data.lasso{ variant = "custom", dim = 16, support = 4, clients = 4, samples = 8 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.huber{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.compare{ problem = problem, rounds = 5, local_steps = 2,
  algorithms = { fedlab.algo.prox_sgd_avg{}, fedlab.algo["local"]{ client = 99 } } }
