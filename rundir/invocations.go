package rundir

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fedlab/fedlab/internal/escape"
)

// EarlierInvocation is an invocation whose runs a directory keeps beside
// the last one's: how it was started, the script it ran, how its last
// session ended and its calls (whose runs have entries in Manifest.Runs).
type EarlierInvocation struct {
	Invocation *Invocation `json:"invocation,omitempty"`
	Script     Script      `json:"script"`
	Fedlab     string      `json:"fedlab_version,omitempty"`
	Status     string      `json:"status"`
	Started    time.Time   `json:"started"`
	Finished   *time.Time  `json:"finished,omitempty"`
	CPUSeconds float64     `json:"cpu_seconds,omitempty"`
	Calls      []Call      `json:"calls"`
}

// current is the manifest's last invocation as an earlier one, for the
// session that follows it.
func (m *Manifest) current() *EarlierInvocation {
	return &EarlierInvocation{Invocation: m.Invocation, Script: m.Script, Fedlab: m.Fedlab, Status: m.Status,
		Started: m.Started, Finished: m.Finished, CPUSeconds: m.CPUSeconds, Calls: m.Calls}
}

// Invocations are the directory's invocations that contributed runs,
// oldest first: the earlier ones, then the last. Invocation number n
// (1-based, as `fedlab table DIR --invocation n` takes it) is
// Invocations()[n-1].
func (m *Manifest) Invocations() []*EarlierInvocation {
	return append(slices.Clone(m.Earlier), m.current())
}

// Select returns the manifest as invocation n (1-based, see Invocations)
// shows it: its calls, script, invocation and status; the runs and files
// are the directory's. n = 0 or the last number is the manifest itself.
func (m *Manifest) Select(n int) (*Manifest, error) {
	all := m.Invocations()
	if n == 0 || n == len(all) {
		return m, nil
	}
	if n < 0 || n > len(all) {
		return nil, fmt.Errorf("--invocation %d: the directory holds the runs of %s (1 to %d; %d, the last, is the default)",
			n, countOf(len(all), "invocation"), len(all), len(all))
	}
	e := all[n-1]
	v := *m
	v.Invocation, v.Script, v.Status, v.Started, v.Finished, v.CPUSeconds, v.Calls = e.Invocation, e.Script, e.Status, e.Started, e.Finished, e.CPUSeconds, e.Calls
	v.Error = ""
	if e.Fedlab != "" {
		v.Fedlab = e.Fedlab
	}
	return &v, nil
}

// OthersNote says which other invocations than number shown (0: the last)
// have runs in dir and how to show them; "" when there are none. E.g.
// "runs/d also stores the runs of 1 other invocation: 1: fedlab run
// s.lua --out runs/d --set rounds=40 (1 run, complete); show one with
// --invocation N".
func (m *Manifest) OthersNote(dir string, shown int) string {
	all := m.Invocations()
	if len(all) < 2 {
		return ""
	}
	if shown == 0 {
		shown = len(all)
	}
	var lines []string
	for i, e := range all {
		if i+1 == shown {
			continue
		}
		lines = append(lines, fmt.Sprintf("  %d: %s (%s, %s)", i+1, e.describe(), countOf(len(e.keys()), "run"), escape.Line(e.Status)))
	}
	return fmt.Sprintf("%s also stores the runs of %s:\n%s\nshow them with --invocation N (this is invocation %d of %d)",
		dir, countOf(len(all)-1, "other invocation"), strings.Join(lines, "\n"), shown, len(all))
}

// describe is the invocation's command line, or what is known of it.
func (e *EarlierInvocation) describe() string {
	if e.Invocation != nil && len(e.Invocation.CommandLine) > 0 {
		return escape.Line(shellLine(e.Invocation.CommandLine))
	}
	return fmt.Sprintf("%s (sha256 %.12s…, command line not recorded)", escape.Line(baseName(e.Script.Path)), e.Script.SHA256)
}

// keys are the distinct runs of the invocation's calls.
func (e *EarlierInvocation) keys() []string {
	seen := map[string]bool{}
	var keys []string
	for _, c := range e.Calls {
		for _, r := range c.Runs {
			if !seen[r.Key] {
				seen[r.Key] = true
				keys = append(keys, r.Key)
			}
		}
	}
	return keys
}

// sameInvocation reports whether two sessions are the same invocation:
// the same script arguments (--set values as typed). Its later sessions
// resume it (or, after --update, replace it); another invocation's runs
// are kept beside it.
func sameInvocation(a, b *Invocation) bool {
	return maps.Equal(setOf(a), setOf(b))
}

func setOf(inv *Invocation) map[string]string {
	if inv == nil || inv.Set == nil {
		return map[string]string{}
	}
	return inv.Set
}

// setText renders an invocation's script arguments: "--set n=3 --set
// rounds=40", or "no --set".
func setText(inv *Invocation) string {
	set := setOf(inv)
	if len(set) == 0 {
		return "no --set"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(set)) {
		parts = append(parts, "--set "+shellWord(k+"="+set[k]))
	}
	return strings.Join(parts, " ")
}

// shellLine joins a command line, each word quoted for a POSIX shell
// where it needs to be.
func shellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellWord(w)
	}
	return strings.Join(q, " ")
}

// shellWord quotes s for a POSIX shell when it holds more than letters,
// digits and ./_-+:@%,=.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_-+:@%,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellLine is shellLine for the command line: the words of a command,
// quoted for a POSIX shell where needed.
func ShellLine(words []string) string { return shellLine(words) }

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// countOf is "1 run", "3 runs".
func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
