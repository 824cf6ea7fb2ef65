package datasets

// The CSV parser of commit f586601, record by record, before parallel
// chunks: the oracle of TestParallelCSVIsSerial and FuzzParallelCSV.

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/escape"
)

// readCSVSerial is ReadCSV as it was, record by record.
func readCSVSerial(r io.Reader, name, label, client string) (*Table, error) {
	cr := csv.NewReader(bufio.NewReader(boundedLines(r, readerLimits)))
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
