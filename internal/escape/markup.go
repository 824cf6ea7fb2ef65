package escape

import (
	"fmt"
	"strings"
	"unicode"
)

// markdownSpecial maps the characters that Markdown (CommonMark and GitHub
// tables) would read as markup or HTML to their escaped forms: HTML as
// entities, so that `<img onerror=…>` in a label is text in every renderer,
// and the inline-markup punctuation with a backslash.
var markdownSpecial = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "#", `\#`, "~", `\~`,
)

// Markdown escapes free text for a Markdown table cell or caption: control
// characters as Line shows them, HTML as entities, markup punctuation with
// backslashes.
func Markdown(s string) string {
	return markdownSpecial.Replace(Line(s))
}

// latexSpecial maps ASCII characters special to LaTeX.
var latexSpecial = map[rune]string{
	'\\': `\textbackslash{}`, '&': `\&`, '%': `\%`, '$': `\$`, '#': `\#`, '_': `\_`,
	'{': `\{`, '}': `\}`, '~': `\textasciitilde{}`, '^': `\textasciicircum{}`,
	'<': `\textless{}`, '>': `\textgreater{}`, '|': `\textbar{}`,
}

// latexText maps non-ASCII characters used in fedlab's names to text-mode
// LaTeX.
var latexText = map[rune]string{
	'–': "--", '—': "---", '…': `\ldots{}`, '’': "'", '‘': "`", '“': "``", '”': "''", '\u00a0': "~",
}

// latexMath maps non-ASCII characters to math-mode LaTeX (emitted inside
// \ensuremath, so they work in text and in math).
var latexMath = map[rune]string{
	// Greek
	'α': `\alpha`, 'β': `\beta`, 'γ': `\gamma`, 'δ': `\delta`, 'ε': `\varepsilon`, 'ϵ': `\epsilon`, 'ζ': `\zeta`,
	'η': `\eta`, 'θ': `\theta`, 'ι': `\iota`, 'κ': `\kappa`, 'λ': `\lambda`, 'μ': `\mu`, 'ν': `\nu`, 'ξ': `\xi`,
	'ο': `o`, 'π': `\pi`, 'ρ': `\rho`, 'σ': `\sigma`, 'ς': `\varsigma`, 'τ': `\tau`, 'υ': `\upsilon`, 'φ': `\varphi`,
	'ϕ': `\phi`, 'χ': `\chi`, 'ψ': `\psi`, 'ω': `\omega`,
	'Α': `A`, 'Β': `B`, 'Γ': `\Gamma`, 'Δ': `\Delta`, 'Ε': `E`, 'Ζ': `Z`, 'Η': `H`, 'Θ': `\Theta`, 'Ι': `I`,
	'Κ': `K`, 'Λ': `\Lambda`, 'Μ': `M`, 'Ν': `N`, 'Ξ': `\Xi`, 'Ο': `O`, 'Π': `\Pi`, 'Ρ': `P`, 'Σ': `\Sigma`,
	'Τ': `T`, 'Υ': `\Upsilon`, 'Φ': `\Phi`, 'Χ': `X`, 'Ψ': `\Psi`, 'Ω': `\Omega`,
	// letters and operators
	'ℓ': `\ell`, '∂': `\partial`, '∇': `\nabla`, '‖': `\|`, '−': `-`, '±': `\pm`, '·': `\cdot`, '×': `\times`,
	'≤': `\le`, '≥': `\ge`, '≠': `\ne`, '≈': `\approx`, '≡': `\equiv`, '∈': `\in`, '→': `\to`, '←': `\leftarrow`,
	'√': `\surd`, '∑': `\sum`, '∞': `\infty`, '⟨': `\langle`, '⟩': `\rangle`, '½': `\tfrac{1}{2}`, '°': `^{\circ}`,
	'∗': `*`, '′': `'`,
	// sub- and superscripts
	'₀': `_{0}`, '₁': `_{1}`, '₂': `_{2}`, '₃': `_{3}`, '₄': `_{4}`, '₅': `_{5}`, '₆': `_{6}`, '₇': `_{7}`,
	'₈': `_{8}`, '₉': `_{9}`, '₋': `_{-}`, '₊': `_{+}`, 'ₖ': `_{k}`, 'ᵢ': `_{i}`, 'ⱼ': `_{j}`, 'ₜ': `_{t}`,
	'⁰': `^{0}`, '¹': `^{1}`, '²': `^{2}`, '³': `^{3}`, '⁴': `^{4}`, '⁵': `^{5}`, '⁶': `^{6}`, '⁷': `^{7}`,
	'⁸': `^{8}`, '⁹': `^{9}`, '⁻': `^{-}`, '⁺': `^{+}`, 'ᵀ': `^{\top}`, 'ᵐ': `^{m}`, 'ᵏ': `^{k}`, 'ⁱ': `^{i}`,
}

// latexAccent maps combining accents to the math accent they put on the
// letter before them.
var latexAccent = map[rune]string{'\u0302': `\hat`, '\u0303': `\tilde`, '\u0304': `\bar`, '\u0307': `\dot`}

// latexAccented maps precomposed accented letters used in mathematical
// names (w̄ written as one character) to math.
var latexAccented = map[rune]string{
	'ē': `\bar{e}`, 'ḡ': `\bar{g}`, 'Ū': `\bar{U}`, 'ū': `\bar{u}`, 'ŵ': `\hat{w}`, 'Ŝ': `\hat{S}`, 'ŝ': `\hat{s}`,
	'ẽ': `\tilde{e}`, 'ỹ': `\tilde{y}`,
}

// LaTeX escapes free text for LaTeX text mode as pdflatex reads it: ASCII
// specials escaped, Greek letters and mathematical symbols as math macros
// (λ as \ensuremath{\lambda}, ‖ as \ensuremath{\|}, w̄ as
// \ensuremath{\bar{w}}), Latin letters with accents kept (pdflatex reads
// them as UTF-8), and any other character shown as its code point
// (\texttt{U+2603}), never dropped. Control characters are shown as Line
// shows them.
func LaTeX(s string) string {
	runes := []rune(Line(s))
	var b strings.Builder
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		if i+1 < len(runes) {
			if acc, ok := latexAccent[runes[i+1]]; ok {
				base := string(r)
				if m, ok := latexMath[r]; ok {
					base = m
				}
				fmt.Fprintf(&b, `\ensuremath{%s{%s}}`, acc, base)
				i++
				continue
			}
		}
		switch {
		case latexSpecial[r] != "":
			b.WriteString(latexSpecial[r])
		case r < 0x80:
			b.WriteRune(r)
		case latexText[r] != "":
			b.WriteString(latexText[r])
		case latexMath[r] != "":
			b.WriteString(`\ensuremath{` + latexMath[r] + `}`)
		case latexAccented[r] != "":
			b.WriteString(`\ensuremath{` + latexAccented[r] + `}`)
		case r <= 0x17f && unicode.IsLetter(r): // Latin-1 and Latin Extended-A letters: é, ü, ł
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, `\texttt{U+%04X}`, r)
		}
	}
	return b.String()
}
