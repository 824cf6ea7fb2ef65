package main

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/registry"
)

const usage = `usage:
  fedlab run SCRIPT.lua [--out DIR] [--jobs N] [--workers N] [--solo] [--fresh | --update]
                        [--shard I/N] [--set KEY=VALUE]... [--quiet] [--unsafe] [--timeout D] [--max-memory M]
                          run a Lua experiment script into a run directory
  fedlab table DIR [--format text|md|latex|csv] [--call N] [--metric NAME]... [--round R]...
                   [--bold] [--transpose] [--width W] [--out FILE]
                          print or export the tables of a run directory
  fedlab plot DIR [--metric NAME]... [--panels] [--x AXIS] [--call N] [--log | --linear] [--logx]
                  [--xlim MIN,MAX] [--ylim MIN,MAX] [--skip-round0] [--width CM] [--height CM]
                  [--font-size PT] [--title T] [--xlabel T] [--ylabel T] [--out DIR] [--format F]...
                          draw the runs of a run directory (PNG and SVG)
  fedlab report DIR [--out FILE] [--script FILE] [--x AXIS]
                          write a self-contained HTML report of a run directory
  fedlab merge DIR... --out DIR
                          combine run directories (the shards of a script)
  fedlab list [KIND]      list registered components (all kinds, or one)
  fedlab describe NAME    show a component's documentation and parameters
  fedlab docs             print the component reference (docs/components.md)
  fedlab version          print the build's version and VCS revision (also --version)
  fedlab help             show this help (also --help after any command)

kinds: algorithm, loss, regularizer, mirror, dataset, metric, schedule, topology, optimizer, availability, compressor, privacy
(or the Lua names algo, loss, reg, mirror, data, metric, schedule, topology, opt, availability, compressor, privacy)

run options:
  --out DIR      run directory: manifest.json, records.csv, results/, models/ and the
                 script's relative output paths (default runs/SCRIPT-YYYYMMDD-HHMMSS);
                 running a script again into its directory resumes it
  --jobs N       runs executed at once (default: number of CPUs)
  --workers N    client worker goroutines per run (default: the CPUs divided among the
                 runs executing at once); results do not depend on --jobs or --workers
  --solo         execute runs one by one; by default the runs of a call that share a
                 problem and settings execute together in lockstep (a cohort), reading
                 each client's data once for all of them: same records, and each run's
                 elapsed time is then its share of the cohort's time
  --fresh        delete the directory's previous runs and start over
  --update       accept a changed script: keep the stored runs whose parameters did not
                 change (a changed script is refused otherwise)
  --shard I/N    execute shard I (0 ≤ I < N) of the runs; the script stops at the first
                 call that needs runs of other shards (merge the shards, then run the
                 script into the merged directory)
  --set K=V      script argument, fedlab.args.K in Lua (repeatable): numbers stay numbers,
                 true/false are booleans, anything else a string; only the runs whose
                 parameters it changes get new keys (no --update needed)
  --quiet        no progress lines
  --unsafe       give the script the os, io and package libraries, and let it write
                 outside its run directory
  --timeout D    stop after D (e.g. 90s, 2h): runs stop at a round boundary, the
                 completed ones are kept, and running the script again resumes it
  --max-memory M memory ceiling, e.g. 4GB (default: the tightest of half of MemAvailable or of
                 the cgroup limit and a quarter of ulimit -v/-d, named in messages); data
                 and state larger than the ceiling are refused before allocation

table options:
  --format F     text (default), md (Markdown), latex (booktabs) or csv
  --call N       only call N of the script (default every call)
  --metric NAME  metric to show (repeatable; default every metric)
  --round R      an evaluated round to show (repeatable; default six evenly spaced rounds)
  --bold         the best value of each metric per round in bold (md, latex)
  --transpose    rounds as columns, one table per metric
  --width W      text tables wider than W columns wrap (0: the default, 100; else at least 20)
  --out FILE     write to FILE instead of standard output

plot options:
  --metric NAME  metric to draw (repeatable; default every metric)
  --panels       one figure per call with a panel per metric (default a figure per metric)
  --x AXIS       round (default), comm (floats up + down), comm_rounds, samples, time
                 (wall time, each run's time spread evenly over its rounds) or a metric the
                 runs measured (e.g. bits)
  --call N       draw only call N of the script (default every call)
  --log, --linear  force the y scale (default: log for error, gap and norm metrics)
  --logx         logarithmic x axis
  --xlim, --ylim MIN,MAX  axis limits
  --skip-round0  leave out round 0
  --width, --height CM  figure size (default 16 × 10 per row of panels)
  --font-size PT font size (default 10)
  --title T      figure title (default: the call's place in the script, with the settings
                 that tell calls at the same place apart)
  --xlabel, --ylabel T  axis labels (default: the metrics' display names)
  --out DIR      where to write the figures (default DIR/plots)
  --format F     png, svg or pdf (repeatable; default png and svg)

report options:
  --out FILE     the HTML file (default DIR/report.html)
  --script FILE  the script, if it is no longer where the manifest says
  --x AXIS       x axis of the figures (as for plot)
`

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// commands are fedlab's commands, for the "did you mean" of a misspelled one.
var commands = []string{"run", "table", "plot", "report", "merge", "list", "describe", "docs", "version", "help"}

// cli runs the command line args and returns the exit status: 0, 1 for an
// error, 2 for a usage mistake. A usage mistake prints its message and one
// line pointing to the help (fedlab alone prints the whole usage).
func cli(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	var ue usageError
	var help helpRequested
	var xe exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		fmt.Fprint(stdout, usage)
		return 0
	case errors.As(err, &xe):
		fmt.Fprintf(stderr, "fedlab: %s\n", escape.Message(xe.msg))
		return xe.code
	case errors.As(err, &ue) && ue.msg == "":
		fmt.Fprint(stderr, usage)
		return 2
	case errors.As(err, &ue):
		helpCmd := "fedlab --help"
		if slices.Contains(commands, args[0]) && args[0] != "help" {
			helpCmd = "fedlab " + args[0] + " --help"
		}
		fmt.Fprintf(stderr, "fedlab: %s\nRun '%s' for usage.\n", escape.Message(ue.msg), helpCmd)
		return 2
	default:
		fmt.Fprintf(stderr, "fedlab: %s\n", escape.Message(err.Error()))
		return 1
	}
}

// didYouMean is " (did you mean X?)" for the name among valid closest to
// name, or "".
func didYouMean(name string, valid []string, prefix string) string {
	if near := registry.Suggest(name, valid); near != "" {
		return fmt.Sprintf(" (did you mean %s%s?)", prefix, near)
	}
	return ""
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{}
	}
	cmd, rest := args[0], args[1:]
	if cmd != "help" && wantsHelp(rest) {
		return helpRequested{cmd}
	}
	switch cmd {
	case "run":
		return runCmd(rest, stdout, stderr)
	case "plot":
		return plotCmd(rest, stdout, stderr)
	case "table":
		return tableCmd(rest, stdout, stderr)
	case "report":
		return reportCmd(rest, stdout)
	case "version", "-version", "--version":
		if len(rest) != 0 {
			return usageError{"version takes no arguments"}
		}
		_, err := io.WriteString(stdout, versionText())
		return err
	case "merge":
		return mergeCmd(rest, stdout, stderr)
	case "list":
		if len(rest) > 1 {
			return usageError{"list takes at most one kind"}
		}
		return list(stdout, rest)
	case "describe":
		if len(rest) != 1 {
			return usageError{"describe takes one component name"}
		}
		return describe(stdout, rest[0])
	case "docs":
		if len(rest) != 0 {
			return usageError{"docs takes no arguments"}
		}
		_, err := io.WriteString(stdout, componentsMarkdown())
		return err
	case "help", "-h", "-help", "--help":
		_, err := io.WriteString(stdout, usage)
		return err
	}
	return usageError{fmt.Sprintf("unknown command %q%s", cmd, didYouMean(cmd, commands, ""))}
}
