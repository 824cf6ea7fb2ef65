package datasets

import (
	"fmt"
	"unicode/utf8"

	"github.com/fedlab/fedlab/internal/escape"
)

// maxLibMessage bounds the bytes of a file-format library's error text
// in a message: a damaged file can make a decoder describe thousands of
// nested fields.
const maxLibMessage = 240

// libError is a file-format library's error (or panic value) as message
// text: cut at maxLibMessage bytes and, if it holds control characters or
// invalid UTF-8 echoed from the file, quoted (escape.Line).
func libError(v any) string {
	s := fmt.Sprint(v)
	if len(s) > maxLibMessage {
		cut := maxLibMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + " …"
	}
	return escape.Line(s)
}
