package cli

import (
	"strings"
	"testing"
	"unicode"

	"github.com/fedlab/fedlab/registry"
)

// TestDescribeReadsAtTheTerminalWidth: at 100 and 60 columns every line of
// fedlab describe, for every component, fits the width; a parameter table
// keeps a description column of at least 40 characters, and a component
// whose table would leave less (fashion_mnist's long default and range
// left a 22-character column, wrapping a sentence over five lines) lists
// its parameters instead, one line each with the description below.
func TestDescribeReadsAtTheTerminalWidth(t *testing.T) {
	for _, width := range []string{"100", "60"} {
		t.Setenv("COLUMNS", width)
		w := map[string]int{"100": 100, "60": 60}[width]
		for _, k := range registry.Kinds {
			for _, name := range registry.Names(k) {
				code, stdout, stderr := runCLI("describe", "fedlab."+string(k)+"."+name)
				if code != 0 {
					t.Fatalf("describe %s.%s: exit %d, %s", k, name, code, stderr)
				}
				narrow := false // a description column narrower than minDescription
				for _, line := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
					if n := displayWidth(line); n > w {
						t.Errorf("describe %s.%s at %d columns: a line of %d: %s", k, name, w, n, line)
					}
					if strings.HasPrefix(line, "│ parameter ") {
						cells := strings.Split(line, "│")
						narrow = displayWidth(cells[len(cells)-2])-2 < minDescription
					}
					if narrow && strings.HasPrefix(line, "│   ") { // a description wrapped in a narrow column
						t.Errorf("describe %s.%s at %d columns: a description wrapped in a column under %d:\n%s", k, name, w, minDescription, stdout)
					}
				}
			}
		}
	}
	t.Setenv("COLUMNS", "100")
	_, stdout, _ := runCLI("describe", "fashion_mnist")
	for _, want := range []string{"\nparameters:\n", "\n  dir: path, default \"/usr/share/datasets/fashion-mnist\"\n      directory with the four IDX files (apt-get install dataset-fashion-mnist)\n",
		"\n  clients: int, default 10, range >= 1\n      number of clients\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("describe fashion_mnist at 100 columns lacks %q:\n%s", want, stdout)
		}
	}
	_, stdout, _ = runCLI("describe", "reg.l1")
	if !strings.Contains(stdout, "│ lambda    │ schedule │ required │ >= 0  │ weight λ ≥ 0 of the penalty") {
		t.Errorf("describe reg.l1 at 100 columns is not a table:\n%s", stdout)
	}
}

// displayWidth is the number of columns s takes: its runes but the
// combining marks (the bar of w̄, the hat of v̂).
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) {
			n++
		}
	}
	return n
}
