package datasets

import (
	"bytes"
	"fmt"
	"io"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/registry"
)

// CSVParams are the CSV loader's parameters.
type CSVParams struct {
	Path   string `param:"path,required,path" doc:"CSV file with a header row; every other column is a numeric feature"`
	Label  string `param:"label" doc:"name of the label column"`
	Client string `param:"client" doc:"name of the client-id column (clients in order of first appearance); \"\" = partition instead"`
	loaderParams
}

func init() {
	registry.DefineWith(registry.Dataset, "csv", "CSV file with a header; a client column gives the client, else the samples are partitioned",
		CSVParams{Label: "label", loaderParams: defaultLoaderParams}, func(c registry.BuildContext, p CSVParams) (*core.Federated, error) {
			t, err := loadCSV(p.Path, p.Label, p.Client, limitsOf(c))
			if err != nil {
				return nil, err
			}
			return t.Federate(p.options())
		})
}

// maxEcho bounds the bytes of input echoed in an error message.
const maxEcho = 40

// MaxLine is the longest line the text readers (CSV, svmlight) accept: a
// file without line breaks (a binary file, /dev/zero) would otherwise be
// buffered whole.
const MaxLine = 64 << 20

// boundedLines returns r, failing once MaxLine bytes (b's maxLine, if a
// test sets one) pass without a line break, when the memory in use passes
// b's ceiling while it is read (checked every readCheckEvery bytes, or b's
// checkEvery), or when b's context ends (see checkCeiling).
func boundedLines(r io.Reader, b readLimits) io.Reader { return &lineBound{r: r, limits: b} }

type lineBound struct {
	r       io.Reader
	limits  readLimits
	run     int   // bytes since the last line break
	read    int64 // bytes read
	checked int64 // bytes read at the last memory check
}

func (l *lineBound) Read(p []byte) (int, error) {
	if err := l.limits.stopped(); err != nil {
		return 0, err
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	every := l.limits.checkEvery
	if every == 0 {
		every = readCheckEvery
	}
	if l.read-l.checked >= every {
		l.checked = l.read
		if cerr := checkCeiling(l.read, l.limits); cerr != nil {
			return n, cerr
		}
	}
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		l.run = n - i - 1
	} else {
		l.run += n
	}
	longest := l.limits.maxLine
	if longest == 0 {
		longest = MaxLine
	}
	if l.run > longest {
		return n, fmt.Errorf("a line is longer than %d MiB: not a text file of samples", longest>>20)
	}
	return n, err
}

// echo is text in an error message: with %q it prints quoted as ASCII and
// cut at maxEcho bytes (escape.Quote), as input text must; other verbs
// print it unchanged.
type echo string

// Format writes the text.
func (e echo) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		io.WriteString(f, escape.Quote(string(e), maxEcho))
		return
	}
	io.WriteString(f, string(e))
}

// echoed wraps the strings among a as echo.
func echoed(a []any) []any {
	for i, v := range a {
		if s, ok := v.(string); ok {
			a[i] = echo(s)
		}
	}
	return a
}

// LoadCSV reads a CSV file, plain or compressed like svmlight files (see
// Decompress and ReadCSV).
func LoadCSV(path, label, client string) (*Table, error) {
	return loadCSV(path, label, client, defaultLimits())
}

// loadCSV is LoadCSV stopping at the limits b (ceiling, context).
func loadCSV(path, label, client string, b readLimits) (*Table, error) {
	fh, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r, err := Decompress(fh, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readCSV(r, path, label, client, textChunk, b)
}

// ReadCSV parses CSV with a header row. The column named label holds the
// labels, the column named client (if client != "") the client ids, and every
// other column a numeric feature, in file order. Errors name the file and
// line, e.g. `data.csv:5: column "x2": bad value "abc": invalid syntax`; the
// error is the one of the first bad record. The records are parsed in
// chunks on every core and joined in order (see readCSV): the values and
// the errors are those of parsing them one by one.
func ReadCSV(r io.Reader, name, label, client string) (*Table, error) {
	return readCSV(r, name, label, client, textChunk, defaultLimits())
}
