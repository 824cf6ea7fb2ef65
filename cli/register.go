package cli

import (
	"flag"
	"fmt"
	"io"
	"regexp"
)

// Command is a command that a program built with Main adds to the command
// line (RegisterCommand), as caddycmd.Command does for Caddy: it is listed
// by help, has its own help and is suggested for a misspelled command.
type Command struct {
	Name     string   // how it is called: lower-case letters, digits and dashes, e.g. "runs"
	Args     string   // the arguments of its synopsis, e.g. "DIR"
	Summary  string   // one line for the list of commands, e.g. "list the runs of a run directory"
	Detail   string   // more text for its own help, or ""
	Examples []string // command lines shown in its help

	// Run runs the command with the arguments after its name and returns
	// nil (exit status 0), an error of Usagef (a command-line mistake:
	// its message and a pointer to the command's help, status 2) or
	// another error (its message, status 1). A command with flags parses
	// them with ParseFlags before anything else: its help lists the flags
	// of the set it parses.
	Run func(args []string, stdout, stderr io.Writer) error
}

var commandName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// RegisterCommand adds cmd to the command line of Main and Run. Call it
// from an init function or from main before Main. It panics (a mistake of
// the program, not of its user) on a name that is not a command name or
// is taken (by one of fedlab's commands or one registered before), and on
// a command without Summary or Run.
func RegisterCommand(cmd Command) {
	switch _, taken := lookupCommand(cmd.Name); {
	case !commandName.MatchString(cmd.Name):
		panic(fmt.Sprintf("cli: command name %q: want lower-case letters, digits and dashes, from a letter", cmd.Name))
	case taken:
		panic(fmt.Sprintf("cli: command %q registered twice", cmd.Name))
	case cmd.Summary == "" || cmd.Run == nil:
		panic(fmt.Sprintf("cli: command %q: want a Summary and a Run", cmd.Name))
	}
	commands = append(commands, command{name: cmd.Name, args: cmd.Args, summary: cmd.Summary, detail: cmd.Detail,
		examples: cmd.Examples, run: cmd.Run})
}

// ParseFlags parses the flags of fs placed before, between or after the
// positional arguments in args, as fedlab's commands do, and returns the
// positional arguments. A flag fs does not define is a command-line
// mistake naming the closest one; -h or --help shows the command's help.
// fs's own output is discarded: the error says what went wrong.
func ParseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	return parseArgs(fs, args)
}

// Usagef returns a command-line mistake (exit status 2): a command's
// message, followed by a pointer to its help.
func Usagef(format string, a ...any) error {
	return usageError{fmt.Sprintf(format, a...)}
}
