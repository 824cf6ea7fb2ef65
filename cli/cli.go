// Package cli is fedlab's command line (run, table, plot, report, merge,
// list, describe, docs, version, help) as a library: a program that
// registers components of its own gets the whole command line by calling
// Main, as cmd/fedlab does with fedlab's components:
//
//	package main
//
//	import (
//		_ "github.com/fedlab/fedlab/registry/all" // fedlab's components
//		"github.com/fedlab/fedlab/cli"
//
//		_ "example.com/myexp/myalgo" // the program's own
//	)
//
//	func main() { cli.Main() }
//
// Every component registered in the process is available to scripts,
// fedlab list, describe and docs, and the program can add commands of its
// own (RegisterCommand; see docs/library.md, "Your own fedlab binary").
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/registry"
)

// command is one of fedlab's commands: how it is called, what its help
// says and the function that runs it. A command's flags are not listed
// here: its help reads them from the command's flag.FlagSet.
type command struct {
	name     string
	args     string   // the arguments of its synopsis, e.g. "SCRIPT.lua"
	summary  string   // one line for the list of commands
	detail   string   // more text for its own help, or ""
	examples []string // command lines shown in its help
	run      func(args []string, stdout, stderr io.Writer) error
}

// exitStatus documents the exit statuses (README.md, "The command line").
const exitStatus = "exit status: 0 success; 1 an error in the script, its data or a run directory; " +
	"2 a command-line mistake (also a --set key or value the script refuses); " +
	"fedlab run also: 3 the script completed but some runs failed, 124 --timeout, 130 Ctrl-C, 143 SIGTERM; " +
	"fedlab claims --strict also: 4 a claim fails or is not evaluated"

// commands are fedlab's commands in the order of the help.
var commands []command

func init() { // commands refer to help, which reads commands
	kinds, names := make([]string, len(registry.Kinds)), make([]string, len(registry.Kinds))
	for i, k := range registry.Kinds {
		kinds[i], names[i] = string(k), luaapi.Namespace(k)
	}
	commands = []command{
		{"run", "SCRIPT.lua", "run a Lua experiment script into a run directory",
			"Flags may come before or after the script.\n" + exitStatus + ".",
			[]string{"fedlab run scripts/quickstart.lua", "fedlab run scripts/libsvm_example.lua --out runs/rcv1 --jobs 2 --set path=/data/rcv1_train.binary.bz2 --timeout 2h"},
			runCmd},
		{"table", "DIR", "print or export the tables of a run directory", "",
			[]string{"fedlab table runs/quickstart --metric opt_gap --round 100 --round 200", "fedlab table runs/quickstart --format latex --bold --out table.tex"},
			tableCmd},
		claimsCommand,
		{"plot", "DIR", "draw the runs of a run directory (PNG and SVG)",
			"One figure per call and metric (mean ± std over seeds; a sweep's selected configurations), into DIR/plots.",
			[]string{"fedlab plot runs/quickstart", "fedlab plot runs/quickstart --metric opt_gap --x comm --panels --format pdf"},
			plotCmd},
		{"report", "DIR", "write a self-contained HTML report of a run directory",
			"The report holds the script, the parameters, the tables, the figures, the failures and the timing.",
			[]string{"fedlab report runs/quickstart", "fedlab report runs/quickstart --out quickstart.html --x comm"},
			reportCmd},
		{"merge", "DIR... --out DIR [--invocation N]", "combine run directories (the shards of a script)",
			"Then run the script into the merged directory to complete the calls that needed every shard.",
			[]string{"fedlab merge runs/lasso-shard-0-of-2 runs/lasso-shard-1-of-2 --out runs/lasso", "fedlab merge runs/lasso-*-shard-* --out runs/lasso"},
			mergeCmd},
		{"list", "[KIND]", "list the registered components (of every kind, or of one)",
			"kinds: " + strings.Join(kinds, ", ") + "\n(or the Lua names " + strings.Join(names, ", ") + ", or the plurals)",
			[]string{"fedlab list", "fedlab list reg"},
			listCmd},
		{"describe", "NAME", "show a component's documentation and parameters",
			"NAME may name the kind: l1, reg.l1 or fedlab.reg.l1. Descriptions wrap to $COLUMNS or the terminal's width (100 columns when not a terminal).",
			[]string{"fedlab describe feddualavg", "fedlab describe reg.l1"},
			describeCmd},
		{"docs", "", "print the component reference (docs/components.md)", "",
			[]string{"fedlab docs > docs/components.md", "fedlab docs | grep -A 12 'fedlab.reg.l1'"},
			docsCmd},
		{"version", "", "print the build's version and VCS revision (also --version)", "",
			[]string{"fedlab version", "fedlab --version"},
			versionCmd},
		{"help", "[COMMAND]", "list the commands, or show one command's help (also COMMAND --help)", "",
			[]string{"fedlab help", "fedlab help run"},
			helpCmd},
	}
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// helpRequested is -h, -help or --help given to a command: its help is
// printed on standard output and the exit status is 0. fs is the flag set
// of the command that parsed it.
type helpRequested struct{ fs *flag.FlagSet }

func (h helpRequested) Error() string { return h.fs.Name() + ": help requested" }

// wantsHelp reports whether args ask for help.
func wantsHelp(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" })
}

// Main runs the command line of the process (os.Args) and exits with its
// status (see Run).
func Main() {
	program = os.Args[0]
	os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr))
}

// program is the program as invoked (os.Args[0] under Main, "fedlab" when
// Run is called otherwise): the manifest records it, and the resume line
// a run prints names it, so that one's own binary names itself.
var program = "fedlab"

// Run runs the command line args and returns the exit status: 0, 1 for an
// error, 2 for a usage mistake, and the statuses of an interrupted or
// failed run (README.md, "The command line"). A usage mistake prints its
// message and one line pointing to the help (fedlab alone prints the list
// of commands).
func Run(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	var ue usageError
	var xe exitError
	var ae *luaapi.ArgError
	var help helpRequested
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help): // --h, which wantsHelp does not look for
		c, _ := lookupCommand(help.fs.Name())
		if err := writeHelp(stdout, c); err != nil {
			fmt.Fprintf(stderr, "fedlab: %s\n", err)
			return 1
		}
		return 0
	case errors.As(err, &xe):
		fmt.Fprintf(stderr, "fedlab: %s\n", escape.Message(xe.msg))
		return xe.code
	case errors.As(err, &ue) && ue.msg == "":
		fmt.Fprint(stderr, globalHelp())
		return 2
	case errors.As(err, &ue):
		helpCmd := "fedlab --help"
		if c, ok := lookupCommand(args[0]); ok && c.name != "help" {
			helpCmd = "fedlab " + c.name + " --help"
		}
		fmt.Fprintf(stderr, "fedlab: %s\nRun '%s' for usage.\n", escape.Message(ue.msg), helpCmd)
		return 2
	case errors.As(err, &ae): // a --set key or value the script refuses: its message lists what the script accepts
		fmt.Fprintf(stderr, "fedlab: %s\n", escape.Message(err.Error()))
		return 2
	default:
		fmt.Fprintf(stderr, "fedlab: %s\n", escape.Message(err.Error()))
		return 1
	}
}

// commandNames are the names of the commands, for suggestions.
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// lookupCommand finds the command called name (-version and --version
// are version).
func lookupCommand(name string) (command, bool) {
	if name == "-version" || name == "--version" {
		name = "version"
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == name })
	if i < 0 {
		return command{}, false
	}
	return commands[i], true
}

// unknownCommand is the usage error of a misspelled command.
func unknownCommand(name string) error {
	return usageError{fmt.Sprintf("unknown command %q%s", name, registry.DidYouMean(name, commandNames()))}
}

// dispatch runs the command of args.
func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{}
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		return helpCmd(args[1:], stdout, stderr)
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		return unknownCommand(args[0])
	}
	if wantsHelp(args[1:]) {
		return writeHelp(stdout, c)
	}
	return c.run(args[1:], stdout, stderr)
}

// versionCmd is `fedlab version`.
func versionCmd(args []string, stdout, _ io.Writer) error {
	if err := noArguments(newFlagSet("version"), args); err != nil {
		return err
	}
	_, err := io.WriteString(stdout, versionText())
	return err
}
