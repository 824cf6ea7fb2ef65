package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/escape"
)

// SweepOptions choose how a sweep table is laid out.
type SweepOptions struct {
	// Cols is the swept key whose values are the columns; "" means the last
	// key. Rows are the combinations of the other keys' values.
	Cols string
	// Title is printed above the tables if not empty.
	Title string
	// Format is "" or "text", "md" or "latex" (not csv: the records of a
	// sweep's runs are in fedlab.csv and records.csv).
	Format string
	// Width is the width text tables wrap at (0: DefaultWidth).
	Width int
}

// SweepTable prints one grid per selection (algorithm): a cell per
// configuration holding its scores under the rules ("0.9994/3.723", each
// the mean over the seeds, "± std" with several seeds), "*" before the
// selected cell, "diverged@r" or "failed" for configurations that did not
// finish, "–" for combinations not swept. In a successive-halving sweep
// a configuration that stopped before the last rung is marked with its
// rung as a superscript ("4.340 ± 0.025¹") and a footnote under the grid
// says what the marks mean (RungNote). Below each grid a line names the
// selected configuration and its scores.
func SweepTable(w io.Writer, sels []experiment.Selection, rules []experiment.Rule, opts SweepOptions) error {
	if len(sels) == 0 {
		return fmt.Errorf("no runs to tabulate")
	}
	text := opts.Format == "" || opts.Format == "text"
	if !text && opts.Format != "md" && opts.Format != "latex" {
		return fmt.Errorf("sweep table format %q: want text, md or latex", opts.Format)
	}
	if opts.Title != "" {
		fmt.Fprintln(w, opts.Title)
	}
	var crit []string
	for _, r := range rules {
		crit = append(crit, r.String())
	}
	for i, s := range sels {
		if i > 0 {
			fmt.Fprintln(w)
		}
		g, err := grid(s, opts.Cols)
		if err != nil {
			return err
		}
		head := fmt.Sprintf("%s: %s", s.Label, strings.Join(crit, ", ties by "))
		note := RungNote(s)
		if !text {
			g.Title, g.Caption = head, bestLine(s, rules)
			if note != "" {
				g.Caption = note + "; " + g.Caption
			}
			for _, e := range s.Edges() {
				g.Caption += "; " + EdgeWarning(e)
			}
			if err := g.Render(w, opts.Format, 0); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintln(w, head)
		if err := g.Render(w, "text", opts.Width); err != nil {
			return err
		}
		if note != "" {
			fmt.Fprintln(w, note)
		}
		fmt.Fprintln(w, bestLine(s, rules))
		for _, e := range s.Edges() {
			fmt.Fprintln(w, "edge of the grid: "+escape.Line(EdgeWarning(e)))
		}
	}
	return nil
}

// EdgeWarning says that a selected value sits at the edge of its grid and
// what to do about it.
func EdgeWarning(e experiment.Edge) string {
	return e.String() + ": the best value may lie beyond the grid; extend it to be sure"
}

// grid lays out the cells of one selection.
func grid(s experiment.Selection, cols string) (Grid, error) {
	var keys []string
	for _, c := range s.Candidates {
		for _, st := range c.Config {
			if !slices.Contains(keys, st.Key) {
				keys = append(keys, st.Key)
			}
		}
	}
	if cols == "" && len(keys) > 0 {
		cols = keys[len(keys)-1]
	}
	if len(keys) > 0 && !slices.Contains(keys, cols) {
		return Grid{}, fmt.Errorf("cols: %q is not a swept key (swept: %s)", cols, strings.Join(keys, ", "))
	}
	rowKeys := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == cols })
	if len(rowKeys) == 0 { // one key (or none): its values are the rows
		rowKeys, cols = keys, ""
	}
	var rows, columns []string
	cells := map[[2]string]Cell{}
	for j, c := range s.Candidates {
		row := part(c.Config, rowKeys, len(rowKeys) > 1)
		col := part(c.Config, []string{cols}, false)
		if !slices.Contains(rows, row) {
			rows = append(rows, row)
		}
		if !slices.Contains(columns, col) {
			columns = append(columns, col)
		}
		cells[[2]string{row, col}] = candidateCell(c, j == s.Best)
	}
	corner := strings.Join(rowKeys, ", ")
	if cols != "" {
		corner += " \\ " + cols
	}
	g := Grid{Header: append([]string{corner}, columns...), Keys: 1, Mark: true}
	for _, r := range rows {
		line := []Cell{{Text: r}}
		for _, c := range columns {
			line = append(line, cells[[2]string{r, c}]) // missing: the empty cell, "–"
		}
		g.Rows = append(g.Rows, line)
	}
	return g, nil
}

// part renders the values of keys in cfg: "0.001", or "eta_c=0.001 mu=1"
// with named; at most six significant digits ("239382" for
// 239381.6322257649, a value computed in the script), enough to tell the
// values of a grid apart.
func part(cfg experiment.Config, keys []string, named bool) string {
	var out []string
	for _, k := range keys {
		v, ok := cfg.Get(k)
		text := "–"
		if f, isNumber := v.(float64); isNumber {
			text = strconv.FormatFloat(f, 'g', 6, 64)
		} else if ok {
			text = experiment.FormatValue(v)
		}
		if named {
			text = k + "=" + text
		}
		out = append(out, text)
	}
	return strings.Join(out, " ")
}

// candidateCell holds a candidate's scores ("0.8567/7.765"), the selected
// one bold (marked "*" in text), or why it has none as a note; a
// candidate that stopped before a halving sweep's last rung ends with its
// rung as a superscript ("0.8567¹", "diverged@10¹").
func candidateCell(c experiment.Candidate, best bool) Cell {
	mark := ""
	if c.Rung > 0 && c.Rung < c.Rungs {
		mark = superscript(c.Rung)
	}
	if c.Status != "" {
		return Cell{Note: c.Status + mark}
	}
	parts := make([]string, len(c.Scores))
	for i, v := range c.Scores {
		parts[i] = FormatValue(v)
		if len(c.Runs) > 1 {
			parts[i] = FormatMeanStd(v, c.Spread[i])
		}
	}
	return Cell{Text: strings.Join(parts, "/") + mark, Bold: best}
}

// superscript writes n in superscript digits: 12 → "¹²".
func superscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var b strings.Builder
	for _, d := range strconv.Itoa(n) {
		b.WriteString(string([]rune(digits)[d-'0']))
	}
	return b.String()
}

// RungNote is the footnote of a halving sweep's grid: what each rung mark
// means, "¹ stopped at rung 1 of 3 (10 rounds), ² at rung 2 of 3 (30
// rounds); unmarked: ran the last rung (90 rounds)"; "" for a full grid.
func RungNote(s experiment.Selection) string {
	var stopped []int
	rungs, rounds := 0, map[int]int{}
	for _, c := range s.Candidates {
		if c.Rung == 0 {
			continue
		}
		rungs, rounds[c.Rung] = c.Rungs, c.Rounds
		if c.Rung < c.Rungs && !slices.Contains(stopped, c.Rung) {
			stopped = append(stopped, c.Rung)
		}
	}
	if rungs == 0 {
		return ""
	}
	slices.Sort(stopped)
	var parts []string
	for i, k := range stopped {
		what := "stopped at rung"
		if i > 0 {
			what = "at rung"
		}
		parts = append(parts, fmt.Sprintf("%s %s %d of %d (%s)", superscript(k), what, k, rungs, plural(rounds[k], "round")))
	}
	last := "unmarked: ran the last rung"
	if r, ok := rounds[rungs]; ok {
		last += fmt.Sprintf(" (%s)", plural(r, "round"))
	} else {
		last = fmt.Sprintf("no configuration ran the last rung (%d of %d) yet", rungs, rungs)
	}
	if len(parts) == 0 {
		return "successive halving: " + last
	}
	return strings.Join(parts, ", ") + "; " + last
}

// bestLine names the selected configuration, e.g.
// "best FedMiD: eta_c=0.001 eta_s=0.3 (f1 0.8567, l2_error 7.765)".
func bestLine(s experiment.Selection, rules []experiment.Rule) string {
	if s.Best < 0 {
		return fmt.Sprintf("best %s: none (no configuration finished with a score on every seed)", s.Label)
	}
	c := s.Candidates[s.Best]
	var scores []string
	for i, r := range rules {
		scores = append(scores, r.Metric+" "+FormatValue(c.Scores[i]))
	}
	cfg := c.Config.String()
	if cfg == "" {
		cfg = "(no swept keys)"
	}
	return fmt.Sprintf("best %s: %s (%s)", s.Label, cfg, strings.Join(scores, ", "))
}

// plural is "1 round", "3 rounds".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
