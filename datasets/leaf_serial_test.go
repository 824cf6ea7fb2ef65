package datasets

// A serial LEAF reader without parallel parsing or 8-bit storage: every
// file decoded whole, users one after another, x as float64s. The oracle of TestParallelLEAFIsSerial and FuzzParallelLEAF.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// leafSerial is a split as the serial reader held it.
type leafSerial struct {
	name  string
	width int
	users []leafUser
	x, y  []float64
}

// readLEAFSerial reads a LEAF file serially into float64 values: the
// oracle of the parallel reader and its simple alternative.
func readLEAFSerial(path string) (*leafSerial, error) {
	files, err := leafFiles(path)
	if err != nil {
		return nil, err
	}
	s := &leafSerial{name: path, width: -1}
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

// leafSerialJSON is a LEAF file's object: users and their sample counts in
// order, and each user's x rows and y labels.
type leafSerialJSON struct {
	Users      []string `json:"users"`
	NumSamples []int    `json:"num_samples"`
	UserData   map[string]struct {
		X json.RawMessage `json:"x"`
		Y json.RawMessage `json:"y"`
	} `json:"user_data"`
}

// readFile reads one LEAF JSON file, appending its users.
func (s *leafSerial) readFile(path string, seen map[string]string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	var doc leafSerialJSON
	dec := json.NewDecoder(bufio.NewReaderSize(&ceilingReader{r: fh, limits: defaultLimits()}, 1<<16))
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
