package runfile

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/internal/escape"
)

// fixedColumns are the CSV columns every record has, before the metrics.
var fixedColumns = []string{"status", "round", "comm_up", "comm_down", "samples"}

// WriteCSV writes one row per run and evaluated round: label, algorithm,
// seed, one column per swept key of sweep runs (e.g. eta_c, reg.lambda;
// other runs give their resolved parameter of that name, if any), one per
// resolved algorithm parameter not swept (e.g. eta_s; the union
// over the runs, sorted, empty where an algorithm lacks it; named
// "algo.NAME" if NAME is taken by another column; long lists such as a
// tabulated schedule abbreviated by ParamText), status, round, comm_up,
// comm_down, samples, then one
// column per metric (the union over the runs, in order of first
// appearance; empty where a run lacks the metric). Metrics named like a
// fixed column (the comm_up, comm_down and samples metrics) are not
// repeated. Numbers keep full precision. A run without any record (it
// failed before the first evaluation) gets one row with empty round and
// metric columns, so its status is not lost. Runs not run yet (no result)
// are left out.
func WriteCSV(path string, runs []experiment.Run) error {
	return writeCSV(path, [][]experiment.Run{runs}, false, nil)
}

// WriteRecords writes the records of the runs of several calls, as
// WriteCSV does, with two more leading columns: call (1-based) and run
// (the run's key), and a third, rung, after them when a call is a rung of
// a successive-halving sweep: rungs[i] is call i's ("2/4": rung 2 of 4;
// empty for other calls). A run directory's records.csv is written this way.
func WriteRecords(path string, calls [][]experiment.Run, rungs []string) error {
	return writeCSV(path, calls, true, rungs)
}

func writeCSV(path string, calls [][]experiment.Run, ids bool, rungs []string) error {
	var all []experiment.Run
	for _, runs := range calls {
		all = append(all, runs...)
	}
	id := []string{"label", "algorithm", "seed"}
	withRung := slices.ContainsFunc(rungs, func(r string) bool { return r != "" })
	if ids && withRung {
		id = append([]string{"call", "run", "rung"}, id...)
	} else if ids {
		id = append([]string{"call", "run"}, id...)
	}
	keys := configKeys(all)
	var metrics []string
	for _, m := range experiment.MetricNames(all) {
		if !slices.Contains(fixedColumns, m) && !slices.Contains(id, m) && !slices.Contains(keys, m) {
			metrics = append(metrics, m)
		}
	}
	params := paramNames(all, keys)
	paramHeader := make([]string, len(params))
	for i, p := range params {
		paramHeader[i] = p
		if slices.Contains(id, p) || slices.Contains(fixedColumns, p) || slices.Contains(metrics, p) {
			paramHeader[i] = "algo." + p
		}
	}
	header := slices.Concat(id, keys, paramHeader, fixedColumns, metrics)
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(escape.Cells(header)); err != nil {
			return err
		}
		for c, runs := range calls {
			for _, r := range runs {
				if r.Result == nil {
					continue
				}
				lead := []string{r.Label, r.Algorithm, strconv.FormatUint(r.Seed, 10)}
				if ids && withRung {
					lead = append([]string{strconv.Itoa(c + 1), r.Key, rungs[c]}, lead...)
				} else if ids {
					lead = append([]string{strconv.Itoa(c + 1), r.Key}, lead...)
				}
				for _, k := range keys {
					v, ok := r.Config.Get(k)
					if !ok { // a run outside the sweep: its resolved parameter, if it has one
						v, ok = r.Params[k]
					}
					if ok {
						lead = append(lead, experiment.FormatValue(v))
					} else {
						lead = append(lead, "")
					}
				}
				for _, p := range params {
					v, ok := r.Params[p]
					if ok {
						lead = append(lead, ParamText(v))
					} else {
						lead = append(lead, "")
					}
				}
				lead = append(escape.Cells(lead), string(r.Result.Status))
				if err := writeRecords(cw, lead, r, metrics, len(header)); err != nil {
					return err
				}
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

// writeRecords writes the rows of one run, each starting with lead.
func writeRecords(cw *csv.Writer, lead []string, r experiment.Run, metrics []string, width int) error {
	if len(r.Result.Records) == 0 {
		return cw.Write(append(lead, make([]string, width-len(lead))...))
	}
	col := columnsOf(r, metrics)
	row := make([]string, 0, width)
	for _, rec := range r.Result.Records {
		row = append(row[:0], lead...)
		row = append(row, strconv.Itoa(rec.Round), strconv.FormatInt(rec.Up, 10), strconv.FormatInt(rec.Down, 10),
			strconv.FormatInt(rec.Samples, 10))
		for _, i := range col {
			if i < 0 {
				row = append(row, "")
				continue
			}
			row = append(row, strconv.FormatFloat(rec.Values[i], 'g', -1, 64))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	return nil
}

// configKeys is the union of the runs' swept keys in order of first
// appearance.
func configKeys(runs []experiment.Run) []string {
	var keys []string
	for _, r := range runs {
		for _, s := range r.Config {
			if !slices.Contains(keys, s.Key) {
				keys = append(keys, s.Key)
			}
		}
	}
	return keys
}

// paramNames is the union of the runs' algorithm parameters, sorted,
// without the swept keys.
func paramNames(runs []experiment.Run, swept []string) []string {
	var names []string
	for _, r := range runs {
		for p := range r.Params {
			if !slices.Contains(names, p) && !slices.Contains(swept, p) {
				names = append(names, p)
			}
		}
	}
	slices.Sort(names)
	return names
}

// columnsOf maps each name to its index in the run's records, or -1.
func columnsOf(r experiment.Run, names []string) []int {
	col := make([]int, len(names))
	for j, n := range names {
		col[j] = -1
		for i, m := range r.Result.Metrics {
			if m == n {
				col[j] = i
				break
			}
		}
	}
	return col
}
