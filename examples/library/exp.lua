local data = fedlab.data.lasso{ variant = "custom", dim = 16, support = 4, clients = 4, samples = 8 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.table(fedlab.compare{ problem = p, rounds = 20, local_steps = 2, eval_every = 10,
  algorithms = { fedlab.algo.prox_sgd_avg{ eta = 0.01 }, fedlab.algo.fedmid{ eta_c = 0.01 } } })
