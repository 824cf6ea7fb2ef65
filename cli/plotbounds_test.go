package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Figure sizes, fonts and texts from flags have documented ranges: beyond
// them fedlab plot exits 2 naming the flag's range before drawing (a width
// of 1e7 cm or a font of 1e6 pt ran out of memory or panicked in
// makeslice); --x and report's --x name the valid axes and metrics.
func TestPlotFlagsHaveRanges(t *testing.T) {
	out := sharedArgsRunDir(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--width", "1e7"}, "width 1e+07 cm is outside 2–60 cm (0: the default, 16 cm)"},
		{[]string{"--height", "1"}, "height 1 cm is outside 2–60 cm (0: the default, 10 cm per row of panels)"},
		{[]string{"--height", "-1"}, "height -1 cm is outside 2–60 cm"},
		{[]string{"--font-size", "1e6"}, "font size 1e+06 pt is outside 4–36 pt (0: the default, 10 pt)"},
		{[]string{"--title", strings.Repeat("t", 1<<20)}, "title of 1048576 characters: at most 300 fit a figure"},
		{[]string{"--ylabel", strings.Repeat("y", 301)}, "ylabel of 301 characters: at most 300 fit a figure"},
		{[]string{"--x", "nope"}, `--x: "nope" is neither an axis (round, comm, comm_rounds, samples, time) nor a metric the runs measured; they have: objective, l2_error, nnz`},
	} {
		code, stdout, stderr := runCLI(append([]string{"plot", out, "--out", t.TempDir()}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("plot %.40v: exit %d, stdout %q, stderr %.300q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
	for _, ok := range [][]string{{"--height", "0"}, {"--width", "2", "--height", "60", "--font-size", "4"}, {"--x", "nnz"}} {
		if code, _, stderr := runCLI(append([]string{"plot", out, "--out", t.TempDir(), "--metric", "objective"}, ok...)...); code != 0 {
			t.Errorf("plot %v: exit %d, %s", ok, code, stderr)
		}
	}
	html := filepath.Join(t.TempDir(), "r.html")
	code, _, stderr := runCLI("report", out, "--out", html, "--x", "nope")
	if code != 2 || !strings.Contains(stderr, `--x: "nope" is neither an axis (round, comm, comm_rounds, samples, time) nor a metric the runs measured; they have: objective, l2_error, nnz`) {
		t.Errorf("report --x nope: exit %d, stderr %q; want 2 naming the valid values", code, stderr)
	}
	if _, err := os.Stat(html); err == nil {
		t.Errorf("report --x nope wrote %s", html)
	}
}
