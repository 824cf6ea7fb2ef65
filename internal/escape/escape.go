// Package escape makes free text (labels, titles, names, values read from
// files) safe to put on one line of a file or of a terminal message.
package escape

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s unchanged if it is valid UTF-8 without control or line
// separator characters, and otherwise s as a Go string literal with those
// characters escaped (strconv.Quote), so that s cannot start a new line,
// a new header entry or a terminal escape sequence where it is written.
func Line(s string) string {
	if safe(s) {
		return s
	}
	return strconv.Quote(s)
}

// safe reports whether s is valid UTF-8 and holds only printable
// characters and spaces.
func safe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != ' ' && !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Quote returns s as a quoted ASCII Go string literal of at most about max
// characters of s (longer text is cut and marked with "…"), for echoing
// input that may be binary or huge in a message.
func Quote(s string, max int) string {
	cut := false
	if len(s) > max {
		s, cut = s[:max], true
	}
	q := strconv.QuoteToASCII(s)
	if cut {
		q += "…"
	}
	return q
}

// Names joins names with ", ", each escaped by Line and cut to max bytes,
// for listing the column names of a file in a message.
func Names(names []string, max int) string {
	out := make([]string, len(names))
	for i, n := range names {
		if len(n) > max || !safe(n) {
			n = Quote(n, max)
		}
		out[i] = n
	}
	return strings.Join(out, ", ")
}

// Cell defuses a free-text CSV cell for spreadsheets: text that starts
// with '=', '+', '-', '@', a tab or a carriage return would be evaluated as
// a formula by Excel, LibreOffice or Google Sheets, so it gets a leading
// apostrophe (the OWASP recommendation). Numbers ("-0.5", "+Inf") and all
// other text are returned unchanged.
func Cell(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}

// Cells applies Cell to every element of row in place and returns it.
func Cells(row []string) []string {
	for i, s := range row {
		row[i] = Cell(s)
	}
	return row
}

// Message returns a multi-line message for a terminal with control
// characters other than newline and tab shown as Go escapes (\x1b, \r,
// \u202e), so that free text quoted in an error cannot move the cursor,
// set the title or rewrite a line; invalid UTF-8 bytes are shown as \xNN.
func Message(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t' || r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}
