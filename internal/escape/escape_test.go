package escape

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"fedavg η=0.1", "fedavg η=0.1"},
		{"a\nrm -rf ~", `"a\nrm -rf ~"`},
		{"x\x1b[2J", `"x\x1b[2J"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{"sep\u2028line", `"sep\u2028line"`},
		{"", ""},
	} {
		got := Line(c.in)
		if got != c.want {
			t.Errorf("Line(%q) = %s, want %s", c.in, got, c.want)
		}
		if strings.ContainsAny(got, "\n\r\x1b") {
			t.Errorf("Line(%q) = %q still holds a control character", c.in, got)
		}
	}
}

func TestQuote(t *testing.T) {
	if got := Quote("\x00\x01é", 10); got != `"\x00\x01\u00e9"` {
		t.Errorf("Quote = %s", got)
	}
	got := Quote(strings.Repeat("a", 100), 5)
	if got != `"aaaaa"…` {
		t.Errorf("Quote cut = %s", got)
	}
}

func TestNames(t *testing.T) {
	if got := Names([]string{"x1", "a\nb", strings.Repeat("z", 9)}, 4); got != `x1, "a\nb", "zzzz"…` {
		t.Errorf("Names = %s", got)
	}
}

func TestCellDefusesFormulasButNotNumbers(t *testing.T) {
	for in, want := range map[string]string{
		`=HYPERLINK("http://x","y")`: `'=HYPERLINK("http://x","y")`,
		"+cmd|' /C calc'!A0":         "'+cmd|' /C calc'!A0",
		"-2+3":                       "'-2+3",
		"@SUM(A1)":                   "'@SUM(A1)",
		"\t=1":                       "'\t=1",
		"\r=1":                       "'\r=1",
		"-0.5":                       "-0.5",
		"+1e-3":                      "+1e-3",
		"-Inf":                       "-Inf",
		"FedAvg (η = 0.1)":           "FedAvg (η = 0.1)",
		"a=b":                        "a=b",
		"":                           "",
	} {
		if got := Cell(in); got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMarkdown: HTML in free text becomes entities (a label
// `<img src=x onerror=…>` was copied raw into Markdown, where it runs when
// the renderer allows HTML), markup punctuation is backslash-escaped,
// control characters are shown as Line shows them.
func TestMarkdown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"FedAvg η_s=0.3", `FedAvg η\_s=0.3`},
		{`<img src=x onerror=alert(1)>`, `&lt;img src=x onerror=alert(1)&gt;`},
		{"a|b *c* `d` [e](f) #g ~h & \\", "a\\|b \\*c\\* \\`d\\` \\[e\\](f) \\#g \\~h &amp; \\\\"},
		{"x\x1b[31m", `"x\\x1b\[31m"`},
	} {
		if got := Markdown(c.in); got != c.want {
			t.Errorf("Markdown(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLaTeX: specials are escaped, Greek and mathematical symbols become
// math macros (λ, ℓ, η were written raw and stopped pdflatex), combining
// and precomposed accents become math accents, anything else is shown as
// its code point rather than dropped.
func TestLaTeX(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"opt_gap 100% & $5 #1 {x} ~ ^", `opt\_gap 100\% \& \$5 \#1 \{x\} \textasciitilde{} \textasciicircum{}`},
		{"λ=0.1 ℓ1 η_s", `\ensuremath{\lambda}=0.1 \ensuremath{\ell}1 \ensuremath{\eta}\_s`},
		{"‖w − w*‖₂", `\ensuremath{\|}w \ensuremath{-} w*\ensuremath{\|}\ensuremath{_{2}}`},
		{"w̄ ŵ Φ(w) ∇F", `\ensuremath{\bar{w}} \ensuremath{\hat{w}} \ensuremath{\Phi}(w) \ensuremath{\nabla}F`},
		{"1–3 seeds, Gödel", `1--3 seeds, Gödel`},
		{"snow ☃", `snow \texttt{U+2603}`},
		{"a\\b", `a\textbackslash{}b`},
	} {
		if got := LaTeX(c.in); got != c.want {
			t.Errorf("LaTeX(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestMessage: control characters other than newline and tab, and invalid
// UTF-8, are shown as escapes in terminal messages.
func TestMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\nb\tc λ", "a\nb\tc λ"},
		{"label \x1b]0;x\x07 \r\u202e", `label \x1b]0;x\a \r\u202e`},
		{"bad\xffbyte \uFFFD", `bad\xffbyte ` + "\uFFFD"},
	} {
		if got := Message(c.in); got != c.want {
			t.Errorf("Message(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
