// Package luaapi runs fedlab's Lua scripts.
//
// A script gets one sandboxed Lua state (base, table, string and math
// libraries only, unless Options.Unsafe) and a global table `fedlab` whose
// component constructors (fedlab.algo.*, fedlab.loss.*, fedlab.reg.*,
// fedlab.mirror.*, fedlab.data.*, fedlab.metric.*, fedlab.schedule.*) are
// generated from the registry. Parameter tables are decoded strictly and
// validated at the call, so mistakes are reported as `script.lua:LINE:
// message`. Lua builds specifications and reads results; it is never called
// from worker goroutines: a Lua function given as a schedule is tabulated
// round by round before a run starts.
//
// The package is a decoder: every table of named arguments is declared in
// calls.go and read by one strict decoder; fedlab.run, fedlab.compare,
// fedlab.sweep and fedlab.stages decode their tables into plan values
// (package plan), which the script's plan.Builder turns into jobs executed
// by an experiment.Session, in parallel, reusing the runs stored in the
// run directory (rundir.Dir, the session's Store); results come back as Lua tables, and fedlab.table,
// fedlab.sweep_table, fedlab.csv and fedlab.plot report them.
// docs/lua-api.md is the reference.
package luaapi
