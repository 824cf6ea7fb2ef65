package metrics

import (
	"strings"
	"testing"

	"github.com/fedlab/fedlab/internal/escape"
)

// TestDisplayLabelsHaveLaTeX: every metric's display label, which LaTeX
// tables use as headers, maps to LaTeX without the code-point fallback
// (every character of the labels has a macro).
func TestDisplayLabelsHaveLaTeX(t *testing.T) {
	for name, d := range displays {
		for _, label := range []string{d.Label, DisplayOf(name + "_min").Label} {
			got := escape.LaTeX(label)
			if strings.Contains(got, `\texttt{U+`) {
				t.Errorf("metric %s: %q has no LaTeX for a character: %s", name, label, got)
			}
			for _, r := range got {
				if r > 0x7f {
					t.Errorf("metric %s: LaTeX of %q keeps %q", name, label, r)
				}
			}
		}
	}
}
