package datasets

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// leafParams are the LEAF reader's parameters.
type leafParams struct {
	Path       string  `param:"path,required" doc:"a LEAF JSON file, or a directory of them (every *.json, in name order); users in file order are the clients"`
	Test       string  `param:"test" doc:"the test split, a file or directory like path: each test user's rows go to that user's client"`
	Fraction   float64 `param:"fraction" min:"0" max:"1" doc:"LEAF's user sampling: keep a seeded random fraction of the users, in file order (1 = all)"`
	MinSamples int     `param:"min_samples" min:"0" doc:"LEAF's minimum: drop the users with fewer training samples than this"`
	Classes    int     `param:"classes,required" min:"0" doc:"number of classes, labels 0..classes-1 (62 FEMNIST, 10 its digits); 0 = regression"`
	benchSplit
}

func init() {
	d := defaultBenchSplit
	d.Partition = MethodNatural
	registry.Define(registry.Dataset, "leaf",
		"LEAF JSON split (FEMNIST, Synthetic: numeric x rows): each user a client (partition = \"natural\"), LEAF's user sampling seeded; a test split pairs up by user",
		leafParams{Fraction: 1, benchSplit: d}, loadLEAF)
}

// Check refuses an empty user sample.
func (p leafParams) Check() error {
	if p.Fraction == 0 {
		return fmt.Errorf("fraction = 0 keeps no user: give a fraction in (0, 1]")
	}
	return nil
}

// leafFiles returns path itself, or the *.json files in the directory
// path, in name order.
func leafFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
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
}

// leafSplit is the users of a split, in file order, and their rows.
type leafSplit struct {
	name  string
	width int
	users []leafUser
	x, y  []float64 // every row, x flat (rows × width)
}

// readLEAF reads every file of a split.
func readLEAF(path string) (*leafSplit, error) {
	files, err := leafFiles(path)
	if err != nil {
		return nil, err
	}
	s := &leafSplit{name: path, width: -1}
	seen := map[string]string{}
	for _, f := range files {
		if err := s.readFile(f, seen); err != nil {
			return nil, err
		}
	}
	if len(s.users) == 0 {
		return nil, fmt.Errorf("%s: no users", path)
	}
	return s, nil
}

// leafJSON is a LEAF file's object: users and their sample counts in
// order, and each user's x rows and y labels.
type leafJSON struct {
	Users      []string `json:"users"`
	NumSamples []int    `json:"num_samples"`
	UserData   map[string]struct {
		X json.RawMessage `json:"x"`
		Y json.RawMessage `json:"y"`
	} `json:"user_data"`
}

// readFile reads one LEAF JSON file, appending its users.
func (s *leafSplit) readFile(path string, seen map[string]string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	var doc leafJSON
	dec := json.NewDecoder(bufio.NewReaderSize(&ceilingReader{r: fh}, 1<<16))
	if err := dec.Decode(&doc); err != nil {
		return leafError(path, dec, err)
	}
	if doc.Users == nil {
		return fmt.Errorf("%s: no \"users\" list: not a LEAF file ({\"users\": [...], \"num_samples\": [...], \"user_data\": {...}})", path)
	}
	if doc.NumSamples != nil && len(doc.NumSamples) != len(doc.Users) {
		return fmt.Errorf("%s: %d users but %d num_samples", path, len(doc.Users), len(doc.NumSamples))
	}
	for _, id := range doc.Users {
		if _, ok := doc.UserData[id]; !ok {
			return fmt.Errorf("%s: user %s is listed in users but has no user_data", path, echo(id).quoted())
		}
	}
	if len(doc.UserData) != len(doc.Users) {
		for id := range doc.UserData {
			if !slices.Contains(doc.Users, id) {
				return fmt.Errorf("%s: user %s has user_data but is not listed in users", path, echo(id).quoted())
			}
		}
	}
	// the rows num_samples declares, to size the arrays once: trusted up
	// to one value per two bytes of JSON text (a digit and a comma)
	declared, grown := 0, false
	for _, k := range doc.NumSamples {
		declared += max(k, 0)
	}
	var text int64
	if st, err := fh.Stat(); err == nil {
		text = st.Size()
	}
	for u, id := range doc.Users {
		if !grown && s.width > 0 && declared > 0 && int64(declared)*int64(s.width) <= text/2 {
			s.x, s.y = slices.Grow(s.x, declared*s.width), slices.Grow(s.y, declared)
			grown = true
		}
		if other, dup := seen[id]; dup {
			return fmt.Errorf("%s: user %s appears twice (also in %s)", path, echo(id).quoted(), other)
		}
		seen[id] = path
		data := doc.UserData[id]
		var x [][]float64
		var y []float64
		if err := json.Unmarshal(data.X, &x); err != nil {
			return fmt.Errorf("%s: user %s: x is not a list of numeric rows (%v): fedlab reads LEAF's numeric datasets (FEMNIST, Synthetic)", path, echo(id).quoted(), err)
		}
		if err := json.Unmarshal(data.Y, &y); err != nil {
			return fmt.Errorf("%s: user %s: y is not a list of numbers (%v)", path, echo(id).quoted(), err)
		}
		if len(x) != len(y) {
			return fmt.Errorf("%s: user %s has %d x rows but %d y labels", path, echo(id).quoted(), len(x), len(y))
		}
		if doc.NumSamples != nil && doc.NumSamples[u] != len(y) {
			return fmt.Errorf("%s: user %s: num_samples says %d, user_data holds %d", path, echo(id).quoted(), doc.NumSamples[u], len(y))
		}
		user := leafUser{id: id, file: path, start: len(s.y), n: len(y)}
		s.y = append(s.y, y...)
		for i, row := range x {
			if s.width < 0 {
				s.width = len(row)
			}
			if len(row) != s.width || len(row) == 0 {
				return fmt.Errorf("%s: user %s sample %d has %d features, earlier samples %d", path, echo(id).quoted(), i, len(row), s.width)
			}
			s.x = append(s.x, row...)
		}
		doc.UserData[id] = struct {
			X json.RawMessage `json:"x"`
			Y json.RawMessage `json:"y"`
		}{} // release the text of the user read
		s.users = append(s.users, user)
	}
	return nil
}

// leafError names the file and the byte offset of a JSON error.
func leafError(path string, dec *json.Decoder, err error) error {
	var ce *CeilingError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &ce):
		return fmt.Errorf("%s: %w", path, err)
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
	if all {
		p.x, p.y = s.x, s.y
	} else {
		total := 0
		for _, u := range users {
			total += u.n
		}
		p.x, p.y = make([]float64, 0, total*p.features), make([]float64, 0, total)
	}
	starts := make([]int, len(users))
	for k, u := range users {
		starts[k] = p.n
		p.n += u.n
		if !all {
			F := p.features
			p.x = append(p.x, s.x[u.start*F:(u.start+u.n)*F]...)
			p.y = append(p.y, s.y[u.start:u.start+u.n]...)
		}
		for range u.n {
			p.client = append(p.client, index[u.id])
		}
	}
	s.x, s.y = nil, nil
	p.where = func(i int) string {
		k := sort.SearchInts(starts, i+1) - 1
		place := fmt.Sprintf("user %s sample %d", echo(users[k].id).quoted(), i-starts[k])
		if users[k].file != s.name {
			place = filepath.Base(users[k].file) + ": " + place
		}
		return place
	}
	return p
}

// Memory declares the data's memory from the head of each file: the
// num_samples list and the width of the first row, which LEAF writes
// before the rows (0 when a file does not start so: loading checks the
// memory ceiling while it reads).
func (p leafParams) Memory() (uint64, string) {
	var s size
	for i, path := range []string{p.Path, p.Test} {
		if path == "" {
			continue
		}
		files, err := leafFiles(path)
		if err != nil {
			return 0, ""
		}
		n, width := 0, 0
		for _, f := range files {
			k, w, ok := leafHead(f)
			if !ok {
				return 0, ""
			}
			n, width = n+k, max(width, w)
		}
		s.name([]string{"training samples", "test samples"}[i], n, "features", width)
		// the rows as float64s (a second copy only when users are sampled out)
		s.bytes += sampleBytes(n, width, 0)
		if i == 0 && (p.Fraction < 1 || p.MinSamples > 0) {
			s.bytes += sampleBytes(n, width, 0)
		}
	}
	return s.result()
}

// leafHead reads a LEAF file's num_samples and the width of its first x
// row without reading the rest.
func leafHead(path string) (n, width int, ok bool) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, 0, false
	}
	defer fh.Close()
	dec := json.NewDecoder(bufio.NewReader(fh))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false
	}
	counted := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		switch key {
		case "num_samples":
			var ns []int
			if dec.Decode(&ns) != nil {
				return 0, 0, false
			}
			for _, k := range ns {
				n += k
			}
			counted = true
		case "user_data":
			if !counted {
				return 0, 0, false
			}
			// {"user": {"x": [[first row] ...
			for _, want := range []any{json.Delim('{'), nil, json.Delim('{')} {
				if t, err := dec.Token(); err != nil || (want != nil && t != want) {
					return n, 0, n == 0
				}
			}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return 0, 0, false
				}
				if k != "x" {
					var skip json.RawMessage
					if dec.Decode(&skip) != nil {
						return 0, 0, false
					}
					continue
				}
				if t, err := dec.Token(); err != nil || t != json.Delim('[') {
					return 0, 0, false
				}
				var row []float64
				if dec.Decode(&row) != nil {
					return 0, 0, false
				}
				return n, len(row), true
			}
			return 0, 0, false
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return 0, 0, false
			}
		}
	}
	return 0, 0, false
}

// loadLEAF reads the leaf dataset.
func loadLEAF(p leafParams) (*core.Federated, error) {
	split, err := readLEAF(p.Path)
	if err != nil {
		return nil, fmt.Errorf("leaf: %w", err)
	}
	users, err := split.sample(p.MinSamples, p.Fraction, p.Seed)
	if err != nil {
		return nil, fmt.Errorf("leaf: %w", err)
	}
	train := split.pooled(users)
	var test *pooled
	if p.Test != "" {
		ts, err := readLEAF(p.Test)
		if err != nil {
			return nil, fmt.Errorf("leaf: test split: %w", err)
		}
		test = ts.pooled(ts.users)
	}
	return federate(filepath.Base(p.Path), train, test, p.benchSplit, p.Classes, benchStreams, "")
}
