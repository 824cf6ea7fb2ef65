local p = fedlab.params{ rounds = 20 }
local data = fedlab.data.lasso{ variant = "custom", dim = 16, support = 4, clients = 4, samples = 8 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.huber{ delta = 0.5 }, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.table(fedlab.compare{ problem = problem, rounds = p.rounds, local_steps = 2, eval_every = 10,
  algorithms = { fedlab.algo.prox_sgd_avg{ eta = 0.01 }, fedlab.algo.fedmid{ eta_c = 0.01 } } })
