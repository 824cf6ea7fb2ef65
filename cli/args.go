package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/registry"
)

// scriptArgs turns the --set key=value flags into fedlab.args, and the
// values as typed (a later --set of the same key wins).
func scriptArgs(sets []string) (args map[string]any, text map[string]string, err error) {
	if len(sets) == 0 {
		return nil, nil, nil
	}
	args, text = map[string]any{}, map[string]string{}
	for _, s := range sets {
		k, v, err := luaapi.ParseSet(s)
		if err != nil {
			return nil, nil, usageError{err.Error()}
		}
		args[k] = v
		_, text[k], _ = strings.Cut(s, "=")
	}
	return args, text, nil
}

// newFlagSet is the flag set of a command: errors come back to the
// command, nothing is printed.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// flagError is the usage error of a flag fs refused: an unknown flag is
// named with the closest known one.
func flagError(fs *flag.FlagSet, err error) error {
	name, unknown := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !unknown {
		return usageError{err.Error()}
	}
	name = "--" + strings.TrimLeft(name, "-")
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, "--"+f.Name) })
	if len(known) == 0 {
		return usageError{fmt.Sprintf("%s has no flags, got %s", fs.Name(), name)}
	}
	return usageError{fmt.Sprintf("%s has no flag %s%s; its flags: %s", fs.Name(), name, registry.DidYouMean(name, known), strings.Join(known, ", "))}
}

// parseArgs parses flags placed before, between or after the positional
// arguments, and returns the positional arguments. -h, -help or --help
// returns helpRequested with fs: commands call it before they do anything
// else, so that their help can read their flags (flagSet).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, helpRequested{fs}
		} else if err != nil {
			return nil, flagError(fs, err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// unrecordedMetrics is the usage error of a --metric that no run of the
// calls records (of call callNo, counted from 1, or of every call when it
// is 0), naming the closest recorded metric; nil when each is recorded.
func unrecordedMetrics(dir string, calls [][]experiment.Run, callNo int, metrics []string) error {
	runs := slices.Concat(calls...)
	if callNo > 0 {
		runs = calls[callNo-1]
	}
	missing := missingMetrics(runs, metrics)
	if len(missing) == 0 {
		return nil
	}
	have := experiment.MetricNames(runs)
	where := dir
	if callNo > 0 {
		where = fmt.Sprintf("call %d of %s", callNo, dir)
	}
	return usageError{fmt.Sprintf("--metric %s: no run of %s records it%s; the runs record: %s", missing[0], where, registry.DidYouMean(missing[0], have), strings.Join(have, ", "))}
}

// noArguments parses args for a command that takes no arguments.
func noArguments(fs *flag.FlagSet, args []string) error {
	pos, err := parseArgs(fs, args)
	if err == nil && len(pos) != 0 {
		err = usageError{fs.Name() + " takes no arguments"}
	}
	return err
}
