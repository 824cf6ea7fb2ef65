// Package runfile writes and reads the file formats of runs: the records
// CSV (every evaluated round of every run, as a run directory's
// records.csv and fedlab.csv write it) and a run's final model as text (a
// run directory's models/KEY.txt, fedlab.save_model). Files are written
// atomically (a temporary file renamed into place).
package runfile
