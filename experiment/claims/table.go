package claims

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/fedlab/fedlab/internal/escape"
)

// Counts tallies results by verdict.
func Counts(results []Result) (holds, fails, notEvaluated int) {
	for _, r := range results {
		switch r.Verdict {
		case Holds:
			holds++
		case Fails:
			fails++
		default:
			notEvaluated++
		}
	}
	return
}

// Summary is the table's title line, e.g. "Claims of fco_lasso.lua: 9
// hold, 1 fails, 2 not evaluated".
func Summary(script string, results []Result) string {
	h, f, n := Counts(results)
	hold := "hold"
	if h == 1 {
		hold = "holds"
	}
	fail := "fail"
	if f == 1 {
		fail = "fails"
	}
	return fmt.Sprintf("Claims of %s: %d %s, %d %s, %d not evaluated", escape.Line(script), h, hold, f, fail, n)
}

// verdictWidth is the width of the verdict column ("not evaluated").
var verdictWidth = utf8.RuneCountInString(string(NotEvaluated))

// Table writes the claims table: the summary line, then per claim its
// number, verdict, source and words, and under them the measured numbers
// (or why it was not evaluated), wrapped to width columns (at least 60).
func Table(w io.Writer, script string, results []Result, width int) error {
	width = max(width, 60)
	var b strings.Builder
	b.WriteString("\n" + Summary(script, results) + "\n")
	num := len(fmt.Sprint(len(results)))
	indent := strings.Repeat(" ", num+2+verdictWidth+2)
	for i, r := range results {
		head := escape.Line(r.Text)
		if r.Source != "" {
			head = escape.Line(r.Source) + ": " + head
		}
		if r.Where != "" {
			head += " (" + escape.Line(r.Where) + ")"
		}
		lead := fmt.Sprintf("%*d  %-*s  ", num, i+1, verdictWidth, r.Verdict)
		b.WriteString(wrap(lead, indent, head, width))
		if r.Measured != "" {
			b.WriteString(wrap(indent, indent, escape.Line(r.Measured), width))
		}
		if r.Why != "" {
			b.WriteString(wrap(indent, indent, "why: "+escape.Line(r.Why), width))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrap writes text after first, continuing on lines that start with rest,
// breaking between words so that lines stay within width where a word
// allows.
func wrap(first, rest, text string, width int) string {
	var b strings.Builder
	line := first
	n := utf8.RuneCountInString(first)
	start := n
	for _, word := range strings.Fields(text) {
		wn := utf8.RuneCountInString(word)
		if n > start && n+1+wn > width {
			b.WriteString(line + "\n")
			line, n = rest, utf8.RuneCountInString(rest)
			start = n
		}
		if n > start {
			line += " "
			n++
		}
		line += word
		n += wn
	}
	b.WriteString(line + "\n")
	return b.String()
}
