package datasets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/registry"
)

// leafParams are the LEAF reader's parameters.
type leafParams struct {
	Path       string    `param:"path,required,path" doc:"a LEAF JSON file, or a directory of them (every *.json, in name order); users in file order are the clients"`
	Test       string    `param:"test,path" doc:"the test split, a file or directory like path: each test user's rows go to that user's client"`
	Fraction   float64   `param:"fraction" min:"0" max:"1" doc:"LEAF's user sampling: keep a seeded random fraction of the users, in file order (1 = all)"`
	MinSamples int       `param:"min_samples" min:"0" doc:"LEAF's minimum: drop the users with fewer training samples than this"`
	Classes    int       `param:"classes,required" min:"0" doc:"number of classes, labels 0..classes-1 (62 FEMNIST, 10 its digits); 0 = regression"`
	Labels     []float64 `param:"labels" min:"0" doc:"keep only the samples whose label is listed ({0, ..., 9}: FEMNIST's digits), relabelled 0..k-1 in the listed order (classes = k), before min_samples, fraction and the partition (a user left with fewer than min_samples samples is dropped); {} = every sample"`
	BenchSplit
}

// LEAFParams are the parameters of the dataset "leaf".
type LEAFParams struct{ leafParams }

func init() {
	d := defaultBenchSplit
	d.Partition = MethodNatural
	registry.DefineWith(registry.Dataset, "leaf",
		"LEAF JSON split (FEMNIST, Synthetic: numeric x rows): each user a client (partition = \"natural\"), LEAF's user sampling seeded; a test split pairs up by user",
		LEAFParams{leafParams{Fraction: 1, BenchSplit: d}},
		func(c registry.BuildContext, p LEAFParams) (*core.Federated, error) { return loadLEAF(c, p.leafParams) })
}

// Check refuses an empty user sample, and a labels list that does not
// match classes.
func (p leafParams) Check() error {
	if err := checkLabelList(p.Labels, p.Classes); err != nil {
		return err
	}
	if p.Fraction == 0 {
		return fmt.Errorf("fraction = 0 keeps no user: give a fraction in (0, 1]")
	}
	return nil
}

// leafFiles returns path itself, or the *.json files in the directory
// path, in name order.
func leafFiles(path string) ([]string, error) {
	st, err := statData(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	files, err := filepath.Glob(filepath.Join(path, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.json files (LEAF writes a split as data/train/*.json and data/test/*.json)", path)
	}
	sort.Strings(files)
	return files, nil
}

// leafUser is one user's samples: rows start..start+n-1 of its split.
type leafUser struct {
	id       string
	file     string
	start, n int
	from     int // the user's first row in the file, before labels filtered the rows
}

// leafStorage is how a split holds its x values: pixel bytes (every
// value is float64(k)/255 for a byte k), integer bytes (every value an
// integer 0..255), or float64s.
type leafStorage int

const (
	leafPixels leafStorage = iota
	leafIntegers
	leafFloats
)

// intLevels are the values of integer bytes: float64(b).
var intLevels = core.AffineLevels(1, 0)

// String names the storage for the describe notice and messages.
func (k leafStorage) String() string {
	switch k {
	case leafPixels:
		return "8-bit (every x value is k/255, k = 0..255)"
	case leafIntegers:
		return "8-bit (every x value is an integer 0..255)"
	}
	return "float64 (an x value is neither k/255 nor an integer 0..255)"
}

// leafSplit is the users of a split, in file order, and their rows: x
// flat (rows × width) in the storage of every value read (pixel or
// integer bytes in pix, else float64s in x).
type leafSplit struct {
	name    string
	width   int
	users   []leafUser
	storage leafStorage
	allInt  bool // every user so far also had integer bytes (ints)
	pix     []byte
	x, y    []float64
	kept    []int // the row in the file of each row kept by labels; nil: every row
}

// leafJob is one user's JSON object on its way to a parsing goroutine,
// and its result.
type leafJob struct {
	raw *json.RawMessage // from leafText, given back once parsed
	out chan *leafRows
}

// leafText recycles the buffers of the users' JSON text: each user's text
// is copied out of the decoder for a parsing goroutine, and FEMNIST's
// 5 GB of it would otherwise be garbage that lets the heap grow to twice
// the rows read before a collection.
var leafText = sync.Pool{New: func() any { return new(json.RawMessage) }}

// leafDoc is a LEAF file's object as decoded: the users and their sample
// counts, and each user's job in user_data (in key order).
type leafDoc struct {
	path       string
	users      []string
	numSamples []int
	data       map[string]*leafJob
	order      []string // user_data's keys in file order
	err        error
}

// readLEAF reads every file of a split with GOMAXPROCS goroutines (see
// readLEAFWith).
func readLEAF(path string, b readLimits) (*leafSplit, error) {
	return readLEAFWith(path, runtime.GOMAXPROCS(0), b)
}

// readLEAFWith reads every file of a split: up to workers files are read
// at once, each user's rows parsed by encoding/json on workers
// goroutines, and the users joined in file order on the calling
// goroutine, so the split does not depend on workers (1: one file and
// one user at a time). The reading stops at the limits b (ceiling, context).
func readLEAFWith(path string, workers int, b readLimits) (*leafSplit, error) {
	files, err := leafFiles(path)
	if err != nil {
		return nil, err
	}
	s := &leafSplit{name: path, width: -1, allInt: true}
	s.reserve(files)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobs := make(chan *leafJob)
	var parsers, readers sync.WaitGroup
	for range workers {
		parsers.Go(func() {
			var rows [][]float64 // reused from user to user
			for j := range jobs {
				if ctx.Err() != nil {
					j.out <- nil
				} else {
					j.out <- parseLEAFUser(*j.raw, &rows)
				}
				leafText.Put(j.raw)
			}
		})
	}
	docs := make([]chan *leafDoc, len(files))
	for i := range docs {
		docs[i] = make(chan *leafDoc, 1)
	}
	slots := make(chan struct{}, workers) // files read and not yet joined
	readers.Go(func() {
		for i, f := range files {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			readers.Go(func() { docs[i] <- decodeLEAFFile(ctx, f, jobs, b) })
		}
	})
	seen := map[string]string{}
	for i := range files {
		err = s.join(<-docs[i], seen)
		<-slots
		if err != nil {
			break
		}
	}
	cancel()
	readers.Wait()
	close(jobs)
	parsers.Wait()
	if err != nil {
		return nil, err
	}
	if len(s.users) == 0 {
		return nil, fmt.Errorf("%s: no users", path)
	}
	return s, nil
}

// reserve sizes the arrays once for the rows the files' heads declare,
// as bytes: trusted up to one value per two bytes of JSON text (a digit
// and a comma).
func (s *leafSplit) reserve(files []string) {
	n, width := 0, 0
	var text int64
	for _, f := range files {
		k, w, _, ok := leafHead(f)
		st, err := os.Stat(f)
		if !ok || err != nil {
			return
		}
		n, width, text = n+k, max(width, w), text+st.Size()
	}
	if n > 0 && width > 0 && int64(n)*int64(width) <= text/2 {
		s.pix, s.y = make([]byte, 0, n*width), make([]float64, 0, n)
	}
}

// decodeLEAFFile reads a LEAF file's object, handing each user's object
// to the parsing goroutines as it is read (so that the file's text is
// not held whole), stopping at the limits b (ceiling, context).
func decodeLEAFFile(ctx context.Context, path string, jobs chan<- *leafJob, b readLimits) *leafDoc {
	doc := &leafDoc{path: path, data: map[string]*leafJob{}}
	fh, err := openData(path)
	if err != nil {
		doc.err = err
		return doc
	}
	defer fh.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(&ceilingReader{r: fh, limits: b}, 1<<16))
	doc.err = doc.decode(ctx, dec, jobs)
	if doc.err != nil {
		doc.err = leafError(path, dec, doc.err)
	}
	return doc
}

// notLEAF is the error of JSON that is not a LEAF object.
type notLEAF struct {
	offset int64
	what   string
}

func (e *notLEAF) Error() string { return e.what }

// decode reads the file's object: users, num_samples and user_data,
// other keys skipped.
func (doc *leafDoc) decode(ctx context.Context, dec *json.Decoder, jobs chan<- *leafJob) error {
	if err := delim(dec, '{', "the file"); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t.(string) {
		case "users":
			err = dec.Decode(&doc.users)
		case "num_samples":
			err = dec.Decode(&doc.numSamples)
		case "user_data":
			err = doc.userData(ctx, dec, jobs)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return err
	}
	end := dec.InputOffset() // the object's length
	t, err := dec.Token()
	var se *json.SyntaxError
	switch {
	case err == io.EOF:
		return nil
	case err == nil:
		return &notLEAF{end, fmt.Sprintf("a JSON %s follows the file's object", jsonKind(t))}
	case errors.As(err, &se):
		return &notLEAF{end, "text that is not JSON follows the file's object"}
	}
	return err
}

// userData reads user_data's users, handing each to the parsing
// goroutines.
func (doc *leafDoc) userData(ctx context.Context, dec *json.Decoder, jobs chan<- *leafJob) error {
	if err := delim(dec, '{', "user_data"); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		id := t.(string)
		raw := leafText.Get().(*json.RawMessage)
		*raw = (*raw)[:0]
		if err := dec.Decode(raw); err != nil {
			leafText.Put(raw)
			return err
		}
		if _, dup := doc.data[id]; dup {
			leafText.Put(raw)
			return &notLEAF{dec.InputOffset(), fmt.Sprintf("user_data holds user %s twice", echo(id).quoted())}
		}
		job := &leafJob{raw: raw, out: make(chan *leafRows, 1)}
		select {
		case jobs <- job:
		case <-ctx.Done():
			leafText.Put(raw)
			return ctx.Err()
		}
		doc.data[id] = job
		doc.order = append(doc.order, id)
	}
	_, err := dec.Token() // the closing brace
	return err
}

// delim reads the opening delimiter d of what, refusing another value.
func delim(dec *json.Decoder, d json.Delim, what string) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != d {
		return &notLEAF{dec.InputOffset(), fmt.Sprintf("%s holds a JSON %s, not an object", what, jsonKind(t))}
	}
	return nil
}

// jsonKind names the JSON value that begins with token t.
func jsonKind(t json.Token) string {
	switch t.(type) {
	case json.Delim:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

// leafRows is one user's samples as parsed: the x values as bytes of
// both 8-bit storages that hold them exactly (nil when one does not), or
// as float64s when neither does, and the labels.
type leafRows struct {
	err       error // x or y is not numeric
	n         int   // x rows
	width     int   // features of the first row
	bad       int   // the first row of another width than the first, or of none (-1: none)
	badWidth  int
	pix, ints []byte
	x, y      []float64
}

// parseLEAFUser parses a user's object {"x": rows, "y": labels}: in one
// decode into the buffer rows (reused from user to user: its rows are
// overwritten) when it has rows and labels, else as two values, as the
// serial reader did (whose messages and results it keeps).
func parseLEAFUser(raw []byte, rows *[][]float64) *leafRows {
	if bytes.Contains(raw, []byte("null")) {
		if err := leafNull(raw); err != nil {
			return &leafRows{err: err}
		}
	}
	r := &leafRows{bad: -1}
	var x [][]float64
	both := struct {
		X [][]float64 `json:"x"`
		Y []float64   `json:"y"`
	}{X: (*rows)[:0]}
	if err := json.Unmarshal(raw, &both); err == nil && len(both.X) > 0 && both.Y != nil {
		x, r.y = both.X, both.Y
		*rows = both.X
	} else {
		var u struct {
			X json.RawMessage `json:"x"`
			Y json.RawMessage `json:"y"`
		}
		if err := json.Unmarshal(raw, &u); err != nil {
			return &leafRows{err: fmt.Errorf("not an object {\"x\": rows, \"y\": labels} (%v)", err)}
		}
		if err := json.Unmarshal(u.X, &x); err != nil {
			r.err = fmt.Errorf("x is not a list of numeric rows (%v): fedlab reads LEAF's numeric datasets (FEMNIST, Synthetic)", err)
			return r
		}
		if err := json.Unmarshal(u.Y, &r.y); err != nil {
			r.err = fmt.Errorf("y is not a list of numbers (%v)", err)
			return r
		}
	}
	r.n = len(x)
	if r.n == 0 {
		r.pix, r.ints = []byte{}, []byte{}
		return r
	}
	r.width = len(x[0])
	total := 0
	for i, row := range x {
		if r.bad < 0 && (len(row) != r.width || len(row) == 0) {
			r.bad, r.badWidth = i, len(row)
		}
		total += len(row)
	}
	if r.bad >= 0 {
		return r
	}
	r.pix, r.ints = leafBytes(total), leafBytes(total)
	for _, row := range x {
		for _, v := range row {
			if r.pix != nil {
				if b, ok := pixelByte(v); ok {
					r.pix = append(r.pix, b)
				} else {
					r.pix = nil
				}
			}
			if r.ints != nil {
				if b, ok := intByte(v); ok {
					r.ints = append(r.ints, b)
				} else {
					r.ints = nil
				}
			}
		}
	}
	if r.pix == nil && r.ints == nil {
		r.x = make([]float64, 0, total)
		for _, row := range x {
			r.x = append(r.x, row...)
		}
	}
	return r
}

// leafNull finds a null among a user's x values and labels, which
// encoding/json would read as 0 (or leave at a reused row's value).
func leafNull(raw []byte) error {
	var u struct {
		X [][]*float64 `json:"x"`
		Y []*float64   `json:"y"`
	}
	if json.Unmarshal(raw, &u) != nil {
		return nil // the shape is wrong: parseLEAFUser says how
	}
	for i, row := range u.X {
		if row == nil {
			return fmt.Errorf("x row %d is null, not a row of numbers", i)
		}
		for j, v := range row {
			if v == nil {
				return fmt.Errorf("x row %d value %d is null, not a number", i, j)
			}
		}
	}
	for i, v := range u.Y {
		if v == nil {
			return fmt.Errorf("y label %d is null, not a number", i)
		}
	}
	return nil
}

// leafByteBufs recycles the users' byte rows once joined (a user's pixel
// and integer bytes are copied into the split's array; left as garbage,
// FEMNIST's 1.1 GB of them let the heap grow to twice the rows read).
var leafByteBufs sync.Pool

// leafBytes returns an empty byte slice of capacity n or more.
func leafBytes(n int) []byte {
	if b, ok := leafByteBufs.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

// release gives the user's byte rows back to leafByteBufs.
func (r *leafRows) release() {
	for _, b := range [][]byte{r.pix, r.ints} {
		if cap(b) > 0 {
			leafByteBufs.Put(&b)
		}
	}
	r.pix, r.ints = nil, nil
}

// pixelByte returns the byte k whose pixel level float64(k)/255 is v bit
// for bit, if there is one.
func pixelByte(v float64) (byte, bool) {
	if !(v >= 0 && v <= 1) {
		return 0, false
	}
	b := byte(math.Round(v * 255))
	return b, math.Float64bits(pixelLevels[b]) == math.Float64bits(v)
}

// intByte returns the byte b whose integer level float64(b) is v bit for
// bit (not −0), if there is one.
func intByte(v float64) (byte, bool) {
	if !(v >= 0 && v <= 255) || v != math.Trunc(v) {
		return 0, false
	}
	b := byte(v)
	return b, math.Float64bits(intLevels[b]) == math.Float64bits(v)
}

// join checks a file's object and appends its users, in the order of its
// users list, waiting for each one's parse.
func (s *leafSplit) join(doc *leafDoc, seen map[string]string) error {
	path := doc.path
	if doc.err != nil {
		return doc.err
	}
	if doc.users == nil {
		return fmt.Errorf("%s: no \"users\" list: not a LEAF file ({\"users\": [...], \"num_samples\": [...], \"user_data\": {...}})", path)
	}
	if doc.numSamples != nil && len(doc.numSamples) != len(doc.users) {
		return fmt.Errorf("%s: %d users but %d num_samples", path, len(doc.users), len(doc.numSamples))
	}
	for _, id := range doc.users {
		if _, ok := doc.data[id]; !ok {
			return fmt.Errorf("%s: user %s is listed in users but has no user_data", path, echo(id).quoted())
		}
	}
	if len(doc.data) != len(doc.users) {
		for _, id := range doc.order {
			if !slices.Contains(doc.users, id) {
				return fmt.Errorf("%s: user %s has user_data but is not listed in users", path, echo(id).quoted())
			}
		}
	}
	for u, id := range doc.users {
		if other, dup := seen[id]; dup {
			return fmt.Errorf("%s: user %s appears twice (also in %s)", path, echo(id).quoted(), other)
		}
		seen[id] = path
		r := <-doc.data[id].out
		who := fmt.Sprintf("%s: user %s", path, echo(id).quoted())
		switch {
		case r.err != nil:
			return fmt.Errorf("%s: %w", who, r.err)
		case r.n != len(r.y):
			return fmt.Errorf("%s has %d x rows but %d y labels", who, r.n, len(r.y))
		case doc.numSamples != nil && doc.numSamples[u] != len(r.y):
			return fmt.Errorf("%s: num_samples says %d, user_data holds %d", who, doc.numSamples[u], len(r.y))
		}
		if r.n > 0 {
			if s.width < 0 {
				s.width = r.width
			}
			if r.width != s.width || r.width == 0 {
				r.bad, r.badWidth = 0, r.width
			}
			if r.bad >= 0 {
				return fmt.Errorf("%s sample %d has %d features, earlier samples %d", who, r.bad, r.badWidth, s.width)
			}
		}
		s.users = append(s.users, leafUser{id: id, file: path, start: len(s.y), n: r.n})
		s.add(r)
		r.release()
	}
	return nil
}

// add appends a user's rows in the split's storage: pixel bytes while
// every value read is a pixel level, integer bytes while every value is
// an integer 0..255 (the pixel bytes read so far, all 0 or 255, become
// 0 or 1), float64s from the first user whose values are neither (the
// bytes read so far decoded through their levels: the same values).
func (s *leafSplit) add(r *leafRows) {
	s.allInt = s.allInt && r.ints != nil
	if s.storage == leafPixels && r.pix == nil {
		if s.allInt {
			for k, b := range s.pix {
				s.pix[k] = b / 255
			}
			s.storage = leafIntegers
		} else {
			s.toFloats(pixelLevels)
		}
	}
	if s.storage == leafIntegers && r.ints == nil {
		s.toFloats(intLevels)
	}
	s.y = append(s.y, r.y...)
	switch {
	case s.storage == leafPixels:
		s.pix = append(s.pix, r.pix...)
	case s.storage == leafIntegers:
		s.pix = append(s.pix, r.ints...)
	case r.x != nil:
		s.x = append(s.x, r.x...)
	default:
		lv, b := pixelLevels, r.pix
		if b == nil {
			lv, b = intLevels, r.ints
		}
		for _, c := range b {
			s.x = append(s.x, lv[c])
		}
	}
}

// toFloats stores the bytes read so far as float64s, through levels lv.
// The array holds what was read, not the rows reserved for bytes (eight
// times their size, declared as 8-bit): it grows as the reading goes on,
// under the memory ceiling the reader checks.
func (s *leafSplit) toFloats(lv *core.Levels) {
	s.x = make([]float64, len(s.pix))
	for k, b := range s.pix {
		s.x[k] = lv[b]
	}
	s.pix, s.storage = nil, leafFloats
}

// leafError names the file and the byte offset of a JSON error.
func leafError(path string, dec *json.Decoder, err error) error {
	var ce *CeilingError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var nl *notLEAF
	switch {
	case errors.As(err, &ce):
		return fmt.Errorf("%s: %w", path, err)
	case errors.As(err, &nl):
		return fmt.Errorf("%s: byte %d: %s: not a LEAF file", path, nl.offset, nl.what)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the JSON ends at byte %d before the object is complete: truncated", path, dec.InputOffset())
	case errors.As(err, &se):
		return fmt.Errorf("%s: byte %d: not JSON: %v", path, se.Offset, err)
	case errors.As(err, &te):
		return fmt.Errorf("%s: byte %d: %s holds a JSON %s: not a LEAF file", path, te.Offset, te.Field, te.Value)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// sample applies LEAF's sampling: users with fewer than minSamples rows
// dropped, then a seeded random fraction of the rest kept, in file order.
func (s *leafSplit) sample(minSamples int, fraction float64, seed int) ([]leafUser, error) {
	var users []leafUser
	for _, u := range s.users {
		if u.n >= minSamples {
			users = append(users, u)
		}
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("%s: no user has min_samples = %d samples", s.name, minSamples)
	}
	if fraction < 1 {
		k := max(int(math.Round(fraction*float64(len(users)))), 1)
		keep := newRNG(seed, 6).Perm(len(users))[:k]
		slices.Sort(keep)
		for i, j := range keep {
			users[i] = users[j]
		}
		users = users[:k]
	}
	return users, nil
}

// keepLabels filters the split's rows with the labels list (see the
// function keepLabels), before LEAF's sampling: each user keeps its
// listed samples, in order (none, possibly), so min_samples counts them.
func (s *leafSplit) keepLabels(labels []float64, training bool) error {
	if len(labels) == 0 {
		return nil
	}
	F := max(s.width, 0)
	pix := s.pix
	if s.storage == leafFloats {
		pix = nil
	}
	n, kept, count := keepLabels(labels, pix, s.x, s.y, F)
	if err := checkKept(s.name, labels, count, n, training); err != nil {
		return err
	}
	if pix != nil {
		s.pix = s.pix[:n*F]
	} else {
		s.x = s.x[:n*F]
	}
	s.y = s.y[:n]
	q := 0 // kept[q] is the next kept row
	for k := range s.users {
		u := &s.users[k]
		start := q
		for q < n && kept[q] < u.start+u.n {
			q++
		}
		u.from, u.start, u.n = u.start, start, q-start
	}
	s.kept = kept
	return nil
}

// pooled joins the users' rows: the split's own arrays when every user
// is kept (no copy), else a copy of the kept users' rows (the split's
// arrays are released). ids lists every user of the split, kept or not
// (a test user of a user left out is left out too).
func (s *leafSplit) pooled(users []leafUser) *pooled {
	p := &pooled{name: s.name, features: max(s.width, 0)}
	index := map[string]int{}
	for _, u := range s.users {
		index[u.id] = len(p.ids)
		p.ids = append(p.ids, u.id)
	}
	all := len(users) == len(s.users)
	F := p.features
	if s.storage != leafFloats {
		p.levels = pixelLevels
		if s.storage == leafIntegers {
			p.levels = intLevels
		}
	}
	if all {
		p.x, p.pix, p.y = s.x, s.pix, s.y
	} else {
		total := 0
		for _, u := range users {
			total += u.n
		}
		p.y = make([]float64, 0, total)
		if s.storage == leafFloats {
			p.x = make([]float64, 0, total*F)
		} else {
			p.pix = make([]byte, 0, total*F)
		}
	}
	starts := make([]int, len(users))
	for k, u := range users {
		starts[k] = p.n
		p.n += u.n
		if !all {
			a, b := u.start*F, (u.start+u.n)*F
			if s.storage == leafFloats {
				p.x = append(p.x, s.x[a:b]...)
			} else {
				p.pix = append(p.pix, s.pix[a:b]...)
			}
			p.y = append(p.y, s.y[u.start:u.start+u.n]...)
		}
		for range u.n {
			p.client = append(p.client, index[u.id])
		}
	}
	s.x, s.pix, s.y = nil, nil, nil
	p.where = func(i int) string {
		k := sort.SearchInts(starts, i+1) - 1
		j := i - starts[k]
		if s.kept != nil {
			j = s.kept[users[k].start+j] - users[k].from
		}
		place := fmt.Sprintf("user %s sample %d", echo(users[k].id).quoted(), j)
		if users[k].file != s.name {
			place = filepath.Base(users[k].file) + ": " + place
		}
		return place
	}
	return p
}

// Memory declares the data's memory from the head of each file: the
// num_samples list and the first row, which LEAF writes before the rows
// (0 when a file does not start so: loading checks the memory ceiling
// while it reads). The rows are declared 8-bit when every first row's
// values are (k/255 or integers 0..255), as FEMNIST's are; a later value
// that is not makes the split float64, which the ceiling checked while
// reading then bounds. Every sample counts: labels filters the rows read
// in place, so this stays an upper bound.
func (p leafParams) Memory() (uint64, string) {
	return declareSplits([2]string{p.Path, p.Test}, [2]string{"training samples", "test samples"}, func(i int, path string) (splitMemory, bool) {
		files, err := leafFiles(path)
		if err != nil {
			return splitMemory{}, false
		}
		n, width, eightBit := 0, 0, true
		for _, f := range files {
			k, w, b, ok := leafHead(f)
			if !ok {
				return splitMemory{}, false
			}
			n, width, eightBit = n+k, max(width, w), eightBit && b
		}
		m := splitMemory{n: int64(n), width: width, bytes: sampleBytes(n, width, 0)}
		if eightBit {
			m.notes, m.bytes = []any{"storage", "8-bit as the first rows"}, pixelBytes(n, width, 0)
		}
		if i == 0 && (p.Fraction < 1 || p.MinSamples > 0) { // a second copy when users are sampled out
			m.bytes = budget.Sum(m.bytes, m.bytes)
		}
		return m, true
	})
}

// leafHead reads a LEAF file's num_samples, the width of its first x row
// and whether that row's values are 8-bit (all k/255, or all integers
// 0..255) without reading the rest.
func leafHead(path string) (n, width int, eightBit, ok bool) {
	fh, err := openData(path)
	if err != nil {
		return 0, 0, false, false
	}
	defer fh.Close()
	dec := json.NewDecoder(bufio.NewReader(fh))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false, false
	}
	counted := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, 0, false, false
		}
		switch key {
		case "num_samples":
			var ns []int
			if dec.Decode(&ns) != nil {
				return 0, 0, false, false
			}
			for _, k := range ns {
				n += k
			}
			counted = true
		case "user_data":
			if !counted {
				return 0, 0, false, false
			}
			// {"user": {"x": [[first row] ...
			for _, want := range []any{json.Delim('{'), nil, json.Delim('{')} {
				if t, err := dec.Token(); err != nil || (want != nil && t != want) {
					return n, 0, true, n == 0
				}
			}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return 0, 0, false, false
				}
				if k != "x" {
					var skip json.RawMessage
					if dec.Decode(&skip) != nil {
						return 0, 0, false, false
					}
					continue
				}
				if t, err := dec.Token(); err != nil || t != json.Delim('[') {
					return 0, 0, false, false
				}
				var row []float64
				if dec.Decode(&row) != nil {
					return 0, 0, false, false
				}
				pix, ints := true, true
				for _, v := range row {
					_, p := pixelByte(v)
					_, i := intByte(v)
					pix, ints = pix && p, ints && i
				}
				return n, len(row), pix || ints, true
			}
			return 0, 0, false, false
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return 0, 0, false, false
			}
		}
	}
	return 0, 0, false, false
}

// loadLEAF reads the leaf dataset, stopping at c's memory ceiling or when c's context ends.
func loadLEAF(c registry.BuildContext, p leafParams) (*core.Federated, error) {
	limits := limitsOf(c)
	split, err := readLEAF(p.Path, limits)
	if err != nil {
		return nil, fmt.Errorf("leaf: %w", err)
	}
	if err := split.keepLabels(p.Labels, true); err != nil {
		return nil, fmt.Errorf("leaf: %w", err)
	}
	users, err := split.sample(p.MinSamples, p.Fraction, p.Seed)
	if err != nil {
		return nil, fmt.Errorf("leaf: %w", err)
	}
	split.noteDroppedUsers(c, p.MinSamples, p.Labels)
	train := split.pooled(users)
	var test *pooled
	if p.Test != "" {
		ts, err := readLEAF(p.Test, limits)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("leaf: test split: %w: leave out test to use test_fraction (each client's rows split), or give test the folder of LEAF's test split", err)
		}
		if err != nil {
			return nil, fmt.Errorf("leaf: test split: %w", err)
		}
		if err := ts.keepLabels(p.Labels, false); err != nil {
			return nil, fmt.Errorf("leaf: test split: %w", err)
		}
		test = ts.pooled(ts.users)
	}
	return federate(filepath.Base(p.Path), train, test, p.BenchSplit, p.Classes, benchStreams, "")
}
