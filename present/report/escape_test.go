package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// hostileRuns are runs whose labels carry a terminal escape sequence, a
// carriage return, HTML and LaTeX specials with Greek letters.
func hostileRuns() []experiment.Run {
	mk := func(label string) experiment.Run {
		res := &core.Result{Metrics: []string{"opt_gap", "l2_error"}, Status: core.Done,
			Records: []core.Record{{Round: 0, Values: []float64{1, 2}}, {Round: 10, Values: []float64{0.5, 1}}}}
		return experiment.Run{Label: label, Algorithm: "algo", Seed: 1, Result: res}
	}
	return []experiment.Run{mk("\x1b]0;owned\x07\x1b[2Jfake\rFedAvg 0.001"), mk(`<img src=x onerror=alert(1)>`), mk("FedDA η_s=3, λ=1e-3 & 100% {ℓ1}")}
}

// TestTablesEscapeFreeText: terminal tables show control characters as
// visible escapes (a label could set the terminal title, clear the screen
// or fake a row), Markdown shows HTML as text, LaTeX escapes its specials
// and maps Greek letters, and Markdown and LaTeX headers are the metrics'
// display names (they were the raw names, opt\_gap).
func TestTablesEscapeFreeText(t *testing.T) {
	render := func(format string) string {
		var buf bytes.Buffer
		if err := Table(&buf, hostileRuns(), TableOptions{Format: format, Title: "title\x1b[2J <b>"}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	text := render("text")
	if strings.ContainsAny(text, "\x1b\x07\r") || !strings.Contains(text, `"\x1b]0;owned\a\x1b[2Jfake\rFedAvg 0.001"`) {
		t.Errorf("text table:\n%q", text)
	}
	md := render("md")
	if strings.Contains(md, "<img") || !strings.Contains(md, "&lt;img src=x onerror=alert(1)&gt;") ||
		!strings.Contains(md, "| optimality gap Φ(w) − Φ(w\\*) |") || strings.ContainsAny(md, "\x1b\x07\r") {
		t.Errorf("markdown table:\n%s", md)
	}
	tex := render("latex")
	for _, want := range []string{`FedDA \ensuremath{\eta}\_s=3, \ensuremath{\lambda}=1e-3 \& 100\% \{\ensuremath{\ell}1\}`,
		`optimality gap \ensuremath{\Phi}(w) \ensuremath{-} \ensuremath{\Phi}(w*)`} {
		if !strings.Contains(tex, want) {
			t.Errorf("LaTeX table lacks %s:\n%s", want, tex)
		}
	}
	if strings.Contains(tex, "opt\\_gap") {
		t.Errorf("LaTeX header is the raw metric name:\n%s", tex)
	}
	pdflatex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Skip("pdflatex not installed (apt-get install texlive-latex-base texlive-latex-recommended): the LaTeX was checked as text only")
	}
	dir := t.TempDir()
	doc := "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n\\begin{document}\n" + tex + render2(t) + "\\end{document}\n"
	if err := os.WriteFile(filepath.Join(dir, "t.tex"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-output-directory", dir, filepath.Join(dir, "t.tex")).CombinedOutput()
	if err != nil {
		if file := missingLaTeXFile(out); file != "" {
			t.Skipf("pdflatex is installed but %s is not (apt-get install texlive-latex-recommended): the LaTeX was checked as text only", file)
		}
		t.Fatalf("pdflatex: %v\n%s", err, out)
	}
}

// missingLaTeXFile is the file pdflatex stopped on for want of it, as in
// "! LaTeX Error: File `booktabs.sty' not found.", or "" when it stopped for
// another reason.
func missingLaTeXFile(log []byte) string {
	m := regexp.MustCompile("! LaTeX Error: File `([^']+)' not found").FindSubmatch(log)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// render2 is the golden runs' LaTeX table with every metric, transposed.
func render2(t *testing.T) string {
	var buf bytes.Buffer
	if err := Table(&buf, goldenRuns(), TableOptions{Format: "latex", Transpose: true, Bold: true}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestMissingLaTeXFile: the skip names the package pdflatex lacks, and
// only a missing file is a reason to skip.
func TestMissingLaTeXFile(t *testing.T) {
	log := "(/usr/share/texlive/texmf-dist/tex/latex/base/fontenc.sty)\n\n! LaTeX Error: File `booktabs.sty' not found.\n\nType X to quit or <RETURN> to proceed,\n"
	if got := missingLaTeXFile([]byte(log)); got != "booktabs.sty" {
		t.Errorf("missing file %q, want booktabs.sty", got)
	}
	if got := missingLaTeXFile([]byte("! Undefined control sequence.\nl.12 \\toprule\n")); got != "" {
		t.Errorf("an undefined control sequence read as a missing file %q", got)
	}
}
