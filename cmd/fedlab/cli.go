package main

import (
	"errors"
	"fmt"
	"io"
)

const usage = `usage:
  fedlab run SCRIPT.lua [--out DIR] [--jobs N] [--workers N] [--fresh | --update]
                        [--shard I/N] [--quiet] [--unsafe] [--timeout D] [--max-memory M]
                          run a Lua experiment script into a run directory
  fedlab plot DIR [--metric NAME]... [--x AXIS] [--call N] [--log] [--title T] [--out DIR] [--format F]...
                          draw the runs of a run directory (PNG and SVG)
  fedlab merge DIR... --out DIR
                          combine run directories (the shards of a script)
  fedlab list [KIND]      list registered components (all kinds, or one)
  fedlab describe NAME    show a component's documentation and parameters
  fedlab docs             print the component reference (docs/components.md)
  fedlab help             show this help

kinds: algorithm, loss, regularizer, mirror, dataset, metric, schedule, topology, optimizer, availability, compressor, privacy
(or the Lua names algo, loss, reg, mirror, data, metric, schedule, topology, opt, availability, compressor, privacy)

run options:
  --out DIR      run directory: manifest.json, records.csv, results/, models/ and the
                 script's relative output paths (default runs/SCRIPT-YYYYMMDD-HHMMSS);
                 running a script again into its directory resumes it
  --jobs N       runs executed at once (default: number of CPUs)
  --workers N    client worker goroutines per run (default: the CPUs divided among the
                 runs executing at once); results do not depend on --jobs or --workers
  --fresh        delete the directory's previous runs and start over
  --update       accept a changed script: keep the stored runs whose parameters did not
                 change (a changed script is refused otherwise)
  --shard I/N    execute shard I (0 ≤ I < N) of the runs; the script stops at the first
                 call that needs runs of other shards (merge the shards, then run the
                 script into the merged directory)
  --quiet        no progress lines
  --unsafe       give the script the os, io and package libraries, and let it write
                 outside its run directory
  --timeout D    stop after D (e.g. 90s, 2h): runs stop at a round boundary, the
                 completed ones are kept, and running the script again resumes it
  --max-memory M memory ceiling, e.g. 4GB (default: half the available memory); data
                 and state larger than the ceiling are refused before allocation

plot options:
  --metric NAME  metric to draw (repeatable; default every metric)
  --x AXIS       round (default), comm (floats up + down), comm_rounds or samples
  --call N       draw only call N of the script (default every call)
  --log          logarithmic y axis
  --title T      chart title (default: the metric and the call's line in the script)
  --out DIR      where to write the charts (default DIR/plots)
  --format F     png, svg or pdf (repeatable; default png and svg)
`

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// cli runs the command line args and returns the exit status: 0, 1 for an
// error, 2 for a usage mistake.
func cli(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	var ue usageError
	var xe exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &xe):
		fmt.Fprintf(stderr, "fedlab: %s\n", xe.msg)
		return xe.code
	case errors.As(err, &ue):
		if ue.msg != "" {
			fmt.Fprintf(stderr, "fedlab: %s\n", ue.msg)
		}
		fmt.Fprint(stderr, usage)
		return 2
	default:
		fmt.Fprintf(stderr, "fedlab: %s\n", err)
		return 1
	}
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return runCmd(rest, stdout, stderr)
	case "plot":
		return plotCmd(rest, stdout)
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
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}
