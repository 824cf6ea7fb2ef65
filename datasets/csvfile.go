package datasets

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/registry"
)

// csvParams are the CSV loader's parameters.
type csvParams struct {
	Path   string `param:"path,required" doc:"CSV file with a header row; every other column is a numeric feature"`
	Label  string `param:"label" doc:"name of the label column"`
	Client string `param:"client" doc:"name of the client-id column (clients in order of first appearance); \"\" = partition instead"`
	loaderParams
}

func init() {
	registry.Define(registry.Dataset, "csv", "CSV file with a header; a client column gives the client, else the samples are partitioned",
		csvParams{Label: "label", loaderParams: defaultLoaderParams}, func(p csvParams) (*core.Federated, error) {
			t, err := LoadCSV(p.Path, p.Label, p.Client)
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

// boundedLines returns r, failing once MaxLine bytes pass without a line
// break, or when the memory in use passes the ceiling (see
// SetMemoryCeiling) while it is read.
func boundedLines(r io.Reader) io.Reader { return &lineBound{r: r} }

type lineBound struct {
	r       io.Reader
	run     int   // bytes since the last line break
	read    int64 // bytes read
	checked int64 // bytes read at the last memory check
}

func (l *lineBound) Read(p []byte) (int, error) {
	if err := readStopped(); err != nil {
		return 0, err
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	if l.read-l.checked >= readCheckEvery {
		l.checked = l.read
		if cerr := checkCeiling(l.read); cerr != nil {
			return n, cerr
		}
	}
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		l.run = n - i - 1
	} else {
		l.run += n
	}
	if l.run > MaxLine {
		return n, fmt.Errorf("a line is longer than %d MiB: not a text file of samples", MaxLine>>20)
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
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r, err := Decompress(fh, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return ReadCSV(r, path, label, client)
}

// ReadCSV parses CSV with a header row. The column named label holds the
// labels, the column named client (if client != "") the client ids, and every
// other column a numeric feature, in file order. Errors name the file and
// line, e.g. `data.csv:5: column "x2": bad value "abc": invalid syntax`.
func ReadCSV(r io.Reader, name, label, client string) (*Table, error) {
	cr := csv.NewReader(bufio.NewReader(boundedLines(r)))
	cr.TrimLeadingSpace = true
	wrap := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s:%d: %w", name, pe.Line, pe.Err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s:1: empty file, want a header row", name)
	}
	if err != nil {
		return nil, wrap(err)
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	labelCol, clientCol := -1, -1
	var featCols []int
	seen := map[string]bool{}
	for j, h := range header {
		h = strings.TrimSpace(h)
		header[j] = h
		if seen[h] {
			return nil, fmt.Errorf("%s:1: column %s appears twice", name, escape.Quote(h, maxEcho))
		}
		seen[h] = true
		switch {
		case h == label:
			labelCol = j
		case client != "" && h == client:
			clientCol = j
		default:
			featCols = append(featCols, j)
		}
	}
	cols := escape.Names(header, maxEcho) // column names are input: quoted if binary, cut if long
	if labelCol < 0 {
		return nil, fmt.Errorf("%s:1: no label column %s (columns: %s)", name, escape.Quote(label, maxEcho), cols)
	}
	if client != "" && clientCol < 0 {
		return nil, fmt.Errorf("%s:1: no client column %s (columns: %s)", name, escape.Quote(client, maxEcho), cols)
	}
	if len(featCols) == 0 {
		return nil, fmt.Errorf("%s:1: no feature columns (columns: %s)", name, cols)
	}
	cr.FieldsPerRecord = len(header)
	t := &Table{Name: name}
	d := &core.Data{Features: len(featCols)}
	clientOf := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d (%s)", name, pe.StartLine, len(rec), len(header), cols)
		}
		if err != nil {
			return nil, wrap(err)
		}
		value := func(j int) (float64, error) {
			s := strings.TrimSpace(rec[j])
			v, err := parseDecimal(s)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				line, _ := cr.FieldPos(j)
				return 0, fmt.Errorf("%s:%d: column %s: bad value %s: %s", name, line, escape.Quote(header[j], maxEcho), escape.Quote(s, maxEcho), numError(err))
			}
			return v, nil
		}
		y, err := value(labelCol)
		if err != nil {
			return nil, err
		}
		for _, j := range featCols {
			v, err := value(j)
			if err != nil {
				return nil, err
			}
			d.X = append(d.X, v)
		}
		d.Y = append(d.Y, y)
		d.N++
		line, _ := cr.FieldPos(0)
		t.Lines = append(t.Lines, line)
		if clientCol >= 0 {
			id := strings.TrimSpace(rec[clientCol])
			c, ok := clientOf[id]
			if !ok {
				c = len(t.ClientIDs)
				clientOf[id] = c
				t.ClientIDs = append(t.ClientIDs, id)
			}
			t.Client = append(t.Client, c)
		}
	}
	if d.N == 0 {
		return nil, fmt.Errorf("%s: no samples after the header", name)
	}
	t.Data = d
	return t, nil
}
