-- The effect of the communication graph on DFedDA-GT (and, for contrast,
-- DFedDA) on the linear regression of Liang, Peng & Zhang's Fig. 1:
-- chain, ring, 4×4 torus and complete graph over M = 16 nodes, with the
-- step sizes that won the Fig. 1 grid (η_c = 0.2 for DFedDA-GT, 0.1 for
-- DFedDA, halved every R/4 rounds). See docs/reproductions.md (Liang et al.).
-- Run time: 16 s wall, 30 s CPU (table "Run times" in docs/reproductions.md).
--
--   fedlab run scripts/liang_topology.lua --out out/liang

local R, EVAL = 1000, 50
local data = fedlab.data.hetero_linreg{ dim = 1024, support = 16, clients = 16, seed = 1 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{ intercept = false },
  mirror = fedlab.mirror.pnorm{ p = 12 } }
local function decay(eta) return fedlab.schedule.geometric{ start = eta, factor = 0.5, every = R / 4 } end

local graphs = {
  { "chain", fedlab.topology.chain{} },
  { "ring", fedlab.topology.ring{} },
  { "torus", fedlab.topology.grid{ rows = 4, torus = true } },
  { "complete", fedlab.topology.complete{} },
}
print("graph      edges   sigma2    gap      tau(DFedDA)  tau(GT)")
local algs = {}
for _, g in ipairs(graphs) do
  local i = fedlab.info(g[2], 16)
  print(string.format("%-9s %5d   %.5f   %.5f  %8.1f  %8.1f", g[1], i.edges, i.sigma2, i.gap, i.tau, i.tau_gt))
  table.insert(algs, fedlab.algo.dfedda_gt{ eta_c = decay(0.2), topology = g[2], label = "DFedDA-GT " .. g[1] })
  table.insert(algs, fedlab.algo.dfedda{ eta_c = decay(0.1), topology = g[2], label = "DFedDA " .. g[1] })
end

local metrics = { "loss_gap", "l2_error", "l1_error", "consensus", "comm" }
local runs = fedlab.compare{ problem = problem, algorithms = algs, rounds = R, local_steps = 10, batch = 10,
  eval_every = EVAL, metrics = metrics }
fedlab.table(runs, { metrics = { "l1_error", "consensus", "comm" }, rounds = { 100, 250, 500, 1000 }, transpose = true,
  title = "DFedDA(-GT) by topology (node averages; comm = floats sent over the edges)" })
fedlab.csv(runs, "liang_topology.csv")
fedlab.plot(runs, { metric = "l1_error", log = true, file = "liang_topology_l1_error", title = "l1 error by topology" })
fedlab.plot(runs, { metric = "l1_error", x = "comm", log = true, file = "liang_topology_l1_error_vs_comm",
  title = "l1 error against floats communicated" })
