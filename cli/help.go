package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// helpCmd is `fedlab help [COMMAND]`: the list of commands, or one
// command's help.
func helpCmd(args []string, stdout, _ io.Writer) error {
	names, err := parseArgs(newFlagSet("help"), args)
	switch {
	case err != nil:
		return err
	case len(names) > 1:
		return usageError{"help takes at most one command"}
	case len(names) == 0:
		_, err := io.WriteString(stdout, globalHelp())
		return err
	}
	c, ok := lookupCommand(names[0])
	if !ok {
		return unknownCommand(names[0])
	}
	return writeHelp(stdout, c)
}

// globalHelp lists the commands with one line each.
func globalHelp() string {
	var b strings.Builder
	b.WriteString("usage: fedlab COMMAND [ARGUMENTS] [FLAGS]\n\nfedlab runs federated optimization experiments written as Lua scripts.\n\ncommands:\n")
	col := 0
	for _, c := range commands {
		col = max(col, utf8.RuneCountInString(synopsis(c)))
	}
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-*s  %s\n", col, synopsis(c), c.summary)
	}
	b.WriteString("\nRun 'fedlab help COMMAND' or 'fedlab COMMAND --help' for a command's flags and examples.\n")
	b.WriteString(wrap(exitStatus+".", defaultWidth) + "\n")
	return b.String()
}

// synopsis is the command's name and arguments, e.g. "run SCRIPT.lua".
func synopsis(c command) string {
	return strings.TrimSpace(c.name + " " + c.args)
}

// writeHelp prints the help of c: its synopsis, what it does, its flags
// (read from its flag set, so that every flag it defines is listed) and
// examples.
func writeHelp(w io.Writer, c command) error {
	width := terminalWidth(w)
	fs := flagSet(c)
	var b strings.Builder
	b.WriteString("usage: fedlab " + synopsis(c))
	if hasFlags(fs) {
		b.WriteString(" [flags]")
	}
	b.WriteString("\n\n" + wrapLines(sentence(c.summary)+"\n"+c.detail, width) + "\n")
	if hasFlags(fs) {
		b.WriteString("\nflags:\n")
		writeFlags(&b, fs, width)
	}
	b.WriteString("\nexamples:\n")
	for _, e := range c.examples {
		b.WriteString("  " + e + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// flagSet returns the flag set of c, or nil: a command parses its flags
// before it does anything else, so running it with -h only returns
// helpRequested with its flag set.
func flagSet(c command) *flag.FlagSet {
	var h helpRequested
	if err := c.run([]string{"-h"}, io.Discard, io.Discard); errors.As(err, &h) {
		return h.fs
	}
	return nil
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	if fs != nil {
		fs.VisitAll(func(*flag.Flag) { n++ })
	}
	return n > 0
}

// writeFlags lists the flags of fs, sorted by name, each with its value's
// placeholder (the back-quoted word of its usage), its usage wrapped to
// width, and its default when that is not the zero value.
func writeFlags(b *strings.Builder, fs *flag.FlagSet, width int) {
	type row struct{ left, text string }
	var rows []row
	col := 0
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if name != "" {
			left += " " + name
		}
		switch f.DefValue {
		case "", "0", "false", "0s", "[]":
		default:
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		rows = append(rows, row{left, usage})
		col = max(col, utf8.RuneCountInString(left))
	})
	const maxCol = 24 // a longer flag column puts its text on the next line
	indent := 2 + min(col, maxCol) + 2
	for _, r := range rows {
		text := strings.ReplaceAll(wrap(r.text, max(minWidth, width-indent)), "\n", "\n"+strings.Repeat(" ", indent))
		if n := utf8.RuneCountInString(r.left); n > maxCol {
			fmt.Fprintf(b, "  %s\n%s%s\n", r.left, strings.Repeat(" ", indent), text)
		} else {
			fmt.Fprintf(b, "  %s%s%s\n", r.left, strings.Repeat(" ", indent-2-n), text)
		}
	}
}

// sentence is s with a capital first letter and a final period.
func sentence(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:] + "."
}

// wrapLines wraps each line of text to width.
func wrapLines(text string, width int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = wrap(l, width)
	}
	return strings.Join(lines, "\n")
}
