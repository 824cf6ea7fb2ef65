// Package rundir keeps the output directory of a `fedlab run`: every
// completed run is stored by its key, so that re-running the same script
// into the same directory skips the runs already done (resume), a shard of
// a sweep runs a deterministic part of the runs, and shard directories can
// be merged into one. A Dir only stores: it is the experiment.Store of
// the experiment.Session that executes the calls (Open starts both).
//
// Layout of a run directory:
//
//	manifest.json        the script (path, SHA-256), fedlab and Go versions, start and end
//	                     times, status, the calls of the script with their runs, the earlier
//	                     invocations (other --set values) whose runs are kept, and per run
//	                     its fully resolved identity (algorithm and parameters, problem,
//	                     settings, metrics, seed) and status (done, diverged, failed, pending)
//	records.csv          every evaluated round of every run, call by call (runfile.WriteRecords)
//	results/KEY.json     one completed run: status, metric names, records
//	models/KEY.txt       the run's final model (runfile.SaveModel)
//	optima/NAME.json     stored reference optima, by what they solve (size and SHA-256 in the manifest)
//	...                  files the script writes (fedlab.csv, fedlab.plot, ...)
//
// Every file is written atomically (a temporary file renamed into place). A
// run's model is written before its result file, and the result file before
// the manifest mentions the run as completed, so a process killed at any
// moment leaves no file that passes for a completed run: the result files
// are the record of what is complete, and the manifest never claims more.
// The manifest's status is "running" until the script ends ("complete",
// "stopped" for a shard, "failed" for a script error).
//
// A run directory is untrusted input when it is read: every file in it is
// read through OpenFile (see read.go), which follows no link, opens only
// regular files, stops at the size the manifest records, and takes plain
// names only.
package rundir
