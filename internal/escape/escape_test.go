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
