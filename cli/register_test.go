package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestRegisterCommand: a command registered by the program is listed by
// help, has its own help with its flags and examples, runs with its flags
// anywhere among its arguments, and its mistakes end as fedlab's do: a
// usage error (exit 2, the message and the command's help), another error
// (exit 1), a misspelled command suggesting it. A taken or malformed name
// panics at registration.
func TestRegisterCommand(t *testing.T) {
	saved := slices.Clone(commands)
	t.Cleanup(func() { commands = saved })
	RegisterCommand(Command{Name: "count-words", Args: "WORD...", Summary: "count the words given",
		Detail: "Words are counted as given.", Examples: []string{"fedlab count-words a b --min 2"},
		Run: func(args []string, stdout, _ io.Writer) error {
			fs := flag.NewFlagSet("count-words", flag.ContinueOnError)
			least := fs.Int("min", 1, "the least `N` of words")
			words, err := ParseFlags(fs, args)
			switch {
			case err != nil:
				return err
			case len(words) < *least:
				return Usagef("count-words: %d words, fewer than --min %d", len(words), *least)
			case slices.Contains(words, "fail"):
				return errors.New("count-words: asked to fail")
			}
			_, err = fmt.Fprintln(stdout, len(words))
			return err
		}})
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Run(args, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	for _, c := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"count-words", "a", "--min", "2", "b", "c"}, 0, "3\n", ""},
		{[]string{"count-words", "a", "--min", "2"}, 2, "", "fedlab: count-words: 1 words, fewer than --min 2\nRun 'fedlab count-words --help' for usage.\n"},
		{[]string{"count-words", "--mni", "2"}, 2, "", "fedlab: count-words has no flag --mni (did you mean \"--min\"?); its flags: --min\nRun 'fedlab count-words --help' for usage.\n"},
		{[]string{"count-words", "fail"}, 1, "", "fedlab: count-words: asked to fail\n"},
		{[]string{"count-word", "a"}, 2, "", "fedlab: unknown command \"count-word\" (did you mean \"count-words\"?)\nRun 'fedlab --help' for usage.\n"},
	} {
		code, out, errOut := run(c.args...)
		if code != c.code || out != c.stdout || errOut != c.stderr {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", strings.Join(c.args, " "), code, out, errOut, c.code, c.stdout, c.stderr)
		}
	}
	if _, out, _ := run("help"); !strings.Contains(out, "  count-words WORD...") || !strings.Contains(out, "count the words given\n") {
		t.Errorf("the list of commands lacks count-words:\n%s", out)
	}
	want := "usage: fedlab count-words WORD... [flags]\n\nCount the words given.\nWords are counted as given.\n\nflags:\n  --min N  the least N of words (default 1)\n\nexamples:\n  fedlab count-words a b --min 2\n"
	for _, args := range [][]string{{"help", "count-words"}, {"count-words", "--help"}} {
		if code, out, _ := run(args...); code != 0 || out != want {
			t.Errorf("%s: exit %d\n%s\nwant\n%s", strings.Join(args, " "), code, out, want)
		}
	}
	for _, c := range []struct {
		cmd  Command
		want string
	}{
		{Command{Name: "run", Summary: "x", Run: func([]string, io.Writer, io.Writer) error { return nil }}, `cli: command "run" registered twice`},
		{Command{Name: "count-words", Summary: "x", Run: func([]string, io.Writer, io.Writer) error { return nil }}, `cli: command "count-words" registered twice`},
		{Command{Name: "Count", Summary: "x", Run: func([]string, io.Writer, io.Writer) error { return nil }}, `cli: command name "Count": want lower-case letters, digits and dashes, from a letter`},
		{Command{Name: "norun", Summary: "x"}, `cli: command "norun": want a Summary and a Run`},
	} {
		func() {
			defer func() {
				if r := recover(); fmt.Sprint(r) != c.want {
					t.Errorf("registering %q: panic %v, want %q", c.cmd.Name, r, c.want)
				}
			}()
			RegisterCommand(c.cmd)
		}()
	}
}
