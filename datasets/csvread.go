package datasets

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/escape"
)

// readCSV is ReadCSV with chunks of about size bytes: the header is read
// line by line, then the records in chunks of whole records on every core
// (readChunks), each chunk with its own encoding/csv reader whose line
// numbers are offset by the chunk's first line.
func readCSV(r io.Reader, name, label, client string, size int, b readLimits) (*Table, error) {
	lr := &lineReader{br: bufio.NewReader(boundedLines(r, b))}
	h, err := readCSVHeader(csv.NewReader(lr), name, label, client)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: name}
	d := &core.Data{Features: len(h.featCols)}
	clientOf := map[string]int{}
	err = readChunks(splitter{r: lr.br, size: size, first: lr.lines + 1, cut: recordEnd, tail: true},
		func(c chunk) any { return h.parse(c) },
		func(_ chunk, v any) error {
			p := v.(*csvPart)
			d.X = append(d.X, p.x...)
			d.Y = append(d.Y, p.y...)
			d.N += len(p.y)
			t.Lines = append(t.Lines, p.lines...)
			for _, id := range p.ids {
				c, ok := clientOf[id]
				if !ok {
					c = len(t.ClientIDs)
					clientOf[id] = c
					t.ClientIDs = append(t.ClientIDs, id)
				}
				t.Client = append(t.Client, c)
			}
			return p.err
		})
	if err != nil {
		return nil, err
	}
	if d.N == 0 {
		return nil, fmt.Errorf("%s: no samples after the header", name)
	}
	t.Data = d
	return t, nil
}

// lineReader reads at most one line per Read, so that a csv.Reader on it
// reads no further than the record it parses; lines counts the line
// breaks it passed.
type lineReader struct {
	br    *bufio.Reader
	lines int
}

func (l *lineReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		b, err := l.br.ReadByte()
		if err != nil {
			return n, err
		}
		p[n] = b
		n++
		if b == '\n' {
			l.lines++
			break
		}
	}
	return n, nil
}

// recordEnd is the cut of CSV text: after the last line break outside a
// quoted field (an even number of quotes before it, as a field's quotes
// come in pairs).
func recordEnd(text []byte) int {
	if bytes.IndexByte(text, '"') < 0 {
		return lineEnd(text)
	}
	end, open := 0, false
	for i, b := range text {
		switch {
		case b == '"':
			open = !open
		case b == '\n' && !open:
			end = i + 1
		}
	}
	return end
}

// csvHeader is a CSV file's header: its columns and the roles ReadCSV
// gives them.
type csvHeader struct {
	name                string
	header              []string
	cols                string // the column names, for messages
	labelCol, clientCol int
	featCols            []int
}

// readCSVHeader reads and checks the header row.
func readCSVHeader(cr *csv.Reader, name, label, client string) (*csvHeader, error) {
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s:1: empty file, want a header row", name)
	}
	if err != nil {
		return nil, csvError(name, 0, err)
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	h := &csvHeader{name: name, header: header, labelCol: -1, clientCol: -1}
	seen := map[string]bool{}
	for j, c := range header {
		c = strings.TrimSpace(c)
		header[j] = c
		if seen[c] {
			return nil, fmt.Errorf("%s:1: column %s appears twice", name, escape.Quote(c, maxEcho))
		}
		seen[c] = true
		switch {
		case c == label:
			h.labelCol = j
		case client != "" && c == client:
			h.clientCol = j
		default:
			h.featCols = append(h.featCols, j)
		}
	}
	h.cols = escape.Names(header, maxEcho) // column names are input: quoted if binary, cut if long
	if h.labelCol < 0 {
		return nil, fmt.Errorf("%s:1: no label column %s (columns: %s)", name, escape.Quote(label, maxEcho), h.cols)
	}
	if client != "" && h.clientCol < 0 {
		return nil, fmt.Errorf("%s:1: no client column %s (columns: %s)", name, escape.Quote(client, maxEcho), h.cols)
	}
	if len(h.featCols) == 0 {
		return nil, fmt.Errorf("%s:1: no feature columns (columns: %s)", name, h.cols)
	}
	return h, nil
}

// csvError names the file and line of a csv.Reader's error (its lines
// offset by off), or the file alone for a read error.
func csvError(name string, off int, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %w", name, pe.Line+off, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// csvPart is a parsed chunk of records: features, labels, line numbers and
// client ids (none without a client column), and the error of its first
// bad record.
type csvPart struct {
	x, y  []float64
	lines []int
	ids   []string
	err   error
}

// parse parses the records of chunk c, stopping at the first bad one.
func (h *csvHeader) parse(c chunk) *csvPart {
	p := &csvPart{}
	off := c.first - 1
	cr := csv.NewReader(c.reader())
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = len(h.header)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return p
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
			p.err = fmt.Errorf("%s:%d: %d fields, want %d (%s)", h.name, pe.StartLine+off, len(rec), len(h.header), h.cols)
			return p
		}
		if err != nil {
			p.err = csvError(h.name, off, err)
			return p
		}
		value := func(j int) (float64, error) {
			s := strings.TrimSpace(rec[j])
			v, err := parseDecimal(s)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				line, _ := cr.FieldPos(j)
				return 0, fmt.Errorf("%s:%d: column %s: bad value %s: %s", h.name, line+off, escape.Quote(h.header[j], maxEcho), escape.Quote(s, maxEcho), numError(err))
			}
			return v, nil
		}
		y, err := value(h.labelCol)
		if err != nil {
			p.err = err
			return p
		}
		for _, j := range h.featCols {
			v, err := value(j)
			if err != nil {
				p.err = err
				return p
			}
			p.x = append(p.x, v)
		}
		p.y = append(p.y, y)
		line, _ := cr.FieldPos(0)
		p.lines = append(p.lines, line+off)
		if h.clientCol >= 0 {
			p.ids = append(p.ids, strings.TrimSpace(rec[h.clientCol]))
		}
	}
}
