package datasets

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// writeLEAF writes the table's writers as LEAF users, the writers
// listed in users split over files (each a list of writer names).
func writeLEAF(t *testing.T, dir string, tb table, files map[string][]string) {
	t.Helper()
	type data struct {
		X [][]float64 `json:"x"`
		Y []int       `json:"y"`
	}
	for name, users := range files {
		doc := struct {
			Users      []string        `json:"users"`
			NumSamples []int           `json:"num_samples"`
			UserData   map[string]data `json:"user_data"`
		}{Users: users, UserData: map[string]data{}}
		for _, u := range users {
			var d data
			for i, c := range tb.Client {
				if c == u {
					d.X = append(d.X, tb.X[i])
					d.Y = append(d.Y, tb.Y[i])
				}
			}
			doc.NumSamples = append(doc.NumSamples, len(d.Y))
			doc.UserData[u] = d
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLEAFEqualsCSV: a LEAF split in two files gives, value for value,
// the dataset of the same rows written as CSV: the natural partition the
// CSV's client column (each user's rows together and in order), the
// other partitions the CSV's.
func TestLEAFEqualsCSV(t *testing.T) {
	tb, _ := byteTable(30, 6, 4, 5)
	dir := t.TempDir()
	writeLEAF(t, dir, tb, map[string][]string{"a_0.json": {"w0", "w1", "w2"}, "a_1.json": {"w3", "w4"}})
	f := build(t, "leaf", map[string]any{"path": dir, "classes": 4})
	sameFederated(t, f, tb.CSVTwin(t, map[string]any{"classes": 4}))
	naturalKeepsWriters(t, f, tb)
	plain := table{X: tb.X, Y: tb.Y}
	for _, raw := range partitionCases {
		args := map[string]any{"path": dir, "partition": "iid"}
		for k, v := range raw {
			args[k] = v
		}
		sameFederated(t, build(t, "leaf", args), plain.CSVTwin(t, raw))
	}
}

// TestLEAFSamplingAndTestSplit: min_samples drops the small users,
// fraction keeps a seeded random share of the rest in file order, and the
// test split's rows go to their user's client (test rows of dropped users
// are dropped).
func TestLEAFSamplingAndTestSplit(t *testing.T) {
	tb, _ := byteTable(40, 3, 4, 5) // writers hold 2, 6, 8, 10 and 14 rows
	testTab, _ := byteTable(20, 3, 4, 5)
	dir, testDir := t.TempDir(), t.TempDir()
	writeLEAF(t, dir, tb, map[string][]string{"train.json": {"w0", "w1", "w2", "w3", "w4"}})
	writeLEAF(t, testDir, testTab, map[string][]string{"test.json": {"w4", "w0", "w1", "w2", "w3"}})
	count := map[string]int{}
	for _, c := range tb.Client {
		count[c]++
	}
	f := build(t, "leaf", map[string]any{"path": dir, "test": testDir, "classes": 4, "min_samples": 5, "fraction": 0.75, "seed": 3})
	if len(f.Train) != 3 {
		t.Fatalf("%d clients, want round(0.75 × 4 users with ≥ 5 samples) = 3", len(f.Train))
	}
	last := ""
	for m, d := range f.Train {
		w := tb.Client[rowOf(t, tb, d.Row(0))]
		if w <= last || count[w] < 5 || d.N != count[w] {
			t.Fatalf("client %d: writer %s with %d rows after %s (file order, ≥ 5 samples)", m, w, d.N, last)
		}
		last = w
		k := 0
		for i, c := range testTab.Client {
			if c == w {
				if f.Test[m].Row(k)[0] != testTab.X[i][0] {
					t.Fatalf("client %d test row %d is not test row %d", m, k, i)
				}
				k++
			}
		}
		if f.Test[m].N != k {
			t.Fatalf("client %d: %d test rows, writer %s has %d", m, f.Test[m].N, w, k)
		}
	}
	again := build(t, "leaf", map[string]any{"path": dir, "test": testDir, "classes": 4, "min_samples": 5, "fraction": 0.75, "seed": 3})
	sameFederated(t, again, f)
}

func TestLEAFErrors(t *testing.T) {
	tb, _ := byteTable(12, 3, 3, 3)
	dir := t.TempDir()
	writeLEAF(t, dir, tb, map[string][]string{"d.json": {"w0", "w1", "w2"}})
	path := filepath.Join(dir, "d.json")
	good, _ := os.ReadFile(path)
	other := t.TempDir()
	writeLEAF(t, other, tb, map[string][]string{"t.json": {"w1"}})
	tb.Client[0] = "stranger"
	writeLEAF(t, other, tb, map[string][]string{"s.json": {"stranger"}})
	for _, c := range []struct {
		text string // the file's content; "" = as written
		raw  map[string]any
		want string
	}{
		{"", map[string]any{"test": filepath.Join(other, "s.json")}, filepath.Join(other, "s.json") + ": user \"stranger\" sample 0: writer \"stranger\" has no training samples"},
		{"", map[string]any{"classes": 2}, path + ": user \"w0\" sample 2: label 2 is not a class in 0..1 (classes = 2)"},
		{"", map[string]any{"clients": 4}, "clients = 4, but the data name 3 writers"},
		{"", map[string]any{"test_samples": 1}, "test_samples = 1, but the data have no test split"},
		{string(good[:len(good)-9]), nil, path + ": the JSON ends at byte"},
		{strings.Replace(string(good), `"y":[0,1,2`, `"y":[0,1,2,2`, 1), nil, path + ": user \"w0\" has 7 x rows but 8 y labels"},
		{`{"users":["a"],"num_samples":[1],"user_data":{"a":{"x":["hello"],"y":[1]}}}`, nil, path + ": user \"a\": x is not a list of numeric rows"},
		{`{"users":["a","b"],"user_data":{"a":{"x":[[1,2]],"y":[1]},"b":{"x":[[1]],"y":[0]}}}`, nil, path + ": user \"b\" sample 0 has 1 features, earlier samples 2"},
		{`{"users":["a"],"num_samples":[2],"user_data":{"a":{"x":[[1]],"y":[1]}}}`, nil, path + ": user \"a\": num_samples says 2, user_data holds 1"},
		{`{"users":["a"],"num_samples":[1],"user_data":{"a":{"x":[[1]],"y":[1]}}}`, nil, "the data name one writer (\"a\")"},
		{`[1, 2]`, nil, path + ": byte 1: "},
		{`{"users":["a"],"user_data":{"a":{"x":[[1,null]],"y":[1]}}}`, nil, path + ": user \"a\": x row 0 value 1 is null, not a number"},
		{`{"users":["a"],"user_data":{"a":{"x":[[1],null],"y":[1,0]}}}`, nil, path + ": user \"a\": x row 1 is null, not a row of numbers"},
		{`{"users":["a"],"user_data":{"a":{"x":[[1]],"y":[null]}}}`, nil, path + ": user \"a\": y label 0 is null, not a number"},
		{`{"users":["a"],"user_data":{"a":{"x":[[1]],"y":[1]}}} {"users":[]}`, nil, path + ": byte 53: a JSON array follows the file's object: not a LEAF file"},
		{`{"users":["a"],"user_data":{"a":{"x":[[1]],"y":[1]}}}garbage`, nil, path + ": byte 53: text that is not JSON follows the file's object: not a LEAF file"},
	} {
		text := c.text
		if text == "" {
			text = string(good)
		}
		os.WriteFile(path, []byte(text), 0o644)
		args := map[string]any{"path": path, "classes": 3}
		for k, v := range c.raw {
			args[k] = v
		}
		if err := buildErr(t, "leaf", args); !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.raw, err, c.want)
		}
	}
	os.WriteFile(path, good, 0o644)
	a := mustValidate(t, "leaf", map[string]any{"path": dir, "classes": 3})
	// the first row's values are pixel levels: a byte a feature, 8 a label
	if got, what, _ := a.Spec().Size(a); got != 12*(3+8) || what != "training samples = 12, features = 3, storage = 8-bit as the first rows" {
		t.Errorf("declared %d (%q)", got, what)
	}
	writeLEAFText(t, path, []string{"a", "b"}, [][]string{{"0.5", "1", "0"}, {"1", "1", "1"}})
	a = mustValidate(t, "leaf", map[string]any{"path": path, "classes": 3})
	if got, what, _ := a.Spec().Size(a); got != 2*4*8 || what != "training samples = 2, features = 3" {
		t.Errorf("declared %d (%q)", got, what)
	}
}

// writeLEAFText writes a LEAF file whose users hold the given x rows
// (already JSON text) with label 0.
func writeLEAFText(t *testing.T, path string, users []string, rows [][]string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"users":["` + strings.Join(users, `","`) + `"],"num_samples":[`)
	for u := range users {
		if u > 0 {
			b.WriteString(",")
		}
		b.WriteString("1")
	}
	b.WriteString(`],"user_data":{`)
	for u, id := range users {
		if u > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + id + `":{"x":[[` + strings.Join(rows[u], ",") + `]],"y":[0]}`)
	}
	b.WriteString("}}")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLEAFStorage: a split stays 8-bit when every x value is a pixel
// level k/255 (read as float64(k)/255) or, failing that, an integer
// 0..255 (read as float64(k)); a split with any other value, or with
// pixels and integers mixed, is float64. Each storage holds the values
// of the float64 parse bit for bit, and the 8-bit clients equal their
// float64 copies value for value.
func TestLEAFStorage(t *testing.T) {
	pixel := func(k int) string { return strconv.FormatFloat(float64(k)/255, 'g', -1, 64) }
	for _, c := range []struct {
		name   string
		rows   [][]string
		want   leafStorage
		levels *core.Levels
	}{
		{"pixels", [][]string{{pixel(0), pixel(1), pixel(254)}, {"1.0", pixel(128), "0"}}, leafPixels, pixelLevels},
		{"pixels and 0/1 integers", [][]string{{"0", "1", "1"}, {pixel(3), pixel(7), "1"}}, leafPixels, pixelLevels},
		{"integers", [][]string{{"0", "1", "1"}, {"255", "17", "1e1"}}, leafIntegers, intLevels},
		{"pixels then integers", [][]string{{pixel(3), "1", "0"}, {"2", "0", "1"}}, leafFloats, nil},
		{"not a level", [][]string{{pixel(3), "0.5", "0"}, {"2", "0", "1"}}, leafFloats, nil},
		{"negative zero", [][]string{{"-0", "1", "0"}, {"2", "0", "1"}}, leafFloats, nil},
		{"256", [][]string{{"0", "1", "0"}, {"256", "0", "1"}}, leafFloats, nil},
	} {
		dir := t.TempDir()
		writeLEAFText(t, filepath.Join(dir, "a.json"), []string{"u0"}, c.rows[:1])
		writeLEAFText(t, filepath.Join(dir, "b.json"), []string{"u1"}, c.rows[1:])
		s, err := readLEAF(dir, defaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if s.storage != c.want {
			t.Errorf("%s: storage %v, want %v", c.name, s.storage, c.want)
		}
		oracle, err := readLEAFSerial(dir)
		if err != nil {
			t.Fatal(err)
		}
		sameLEAF(t, c.name, s, oracle)
		f := build(t, "leaf", map[string]any{"path": dir, "classes": 0})
		for m, d := range f.Train {
			if d.Levels != c.levels {
				t.Errorf("%s: client %d: levels %p, want %p", c.name, m, d.Levels, c.levels)
			}
			plain := d.Float64()
			for i := range d.N {
				for j, v := range d.Row(i) {
					if w := oracle.x[(oracle.users[m].start+i)*3+j]; math.Float64bits(v) != math.Float64bits(w) || plain.X[i*3+j] != v {
						t.Fatalf("%s: client %d row %d feature %d: %v, float64 copy %v, parsed %v", c.name, m, i, j, v, plain.X[i*3+j], w)
					}
				}
			}
		}
	}
}

// sameLEAF checks that a split holds the oracle's users and x values bit
// for bit (decoded through its storage's levels) and its labels.
func sameLEAF(t *testing.T, name string, s *leafSplit, oracle *leafSerial) {
	t.Helper()
	if len(s.users) != len(oracle.users) || s.width != oracle.width {
		t.Fatalf("%s: %d users of width %d, serial %d of %d", name, len(s.users), s.width, len(oracle.users), oracle.width)
	}
	for u := range s.users {
		if s.users[u] != oracle.users[u] {
			t.Fatalf("%s: user %d: %+v, serial %+v", name, u, s.users[u], oracle.users[u])
		}
	}
	x := leafValues(s)
	if len(x) != len(oracle.x) || len(s.y) != len(oracle.y) {
		t.Fatalf("%s: %d values and %d labels, serial %d and %d", name, len(x), len(s.y), len(oracle.x), len(oracle.y))
	}
	for k := range x {
		if math.Float64bits(x[k]) != math.Float64bits(oracle.x[k]) {
			t.Fatalf("%s: value %d: %v (%v), serial %v", name, k, x[k], s.storage, oracle.x[k])
		}
	}
	for k := range s.y {
		if math.Float64bits(s.y[k]) != math.Float64bits(oracle.y[k]) {
			t.Fatalf("%s: label %d: %v, serial %v", name, k, s.y[k], oracle.y[k])
		}
	}
}

// TestParallelLEAFIsSerial: random LEAF splits of several files, users
// of random sizes and values of every kind (pixel levels, integers,
// other numbers in several spellings), read with 1, 2 and 7 goroutines,
// hold the serial reader's users and values bit for bit.
func TestParallelLEAFIsSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	value := func(kind int) string {
		switch kind {
		case 0:
			return strconv.FormatFloat(float64(rng.IntN(256))/255, 'g', -1, 64)
		case 1:
			return strconv.Itoa(rng.IntN(256))
		}
		return []string{"0.5", "-3e-7", "1E2", "255.0", "-0.0", "0.1000000000000000055511151231257827"}[rng.IntN(6)]
	}
	for trial := range 12 {
		dir := t.TempDir()
		width, kinds := 1+rng.IntN(5), 1+rng.IntN(3)
		u := 0
		for f := range 1 + rng.IntN(5) {
			doc := map[string]any{}
			var users []string
			var counts []int
			data := map[string]any{}
			for range rng.IntN(6) {
				id := fmt.Sprintf("w%03d", u)
				u++
				n := rng.IntN(9)
				x := make([]json.RawMessage, n)
				y := make([]int, n)
				kind := rng.IntN(kinds)
				for i := range n {
					vals := make([]string, width)
					for j := range vals {
						vals[j] = value(kind)
					}
					x[i] = json.RawMessage("[" + strings.Join(vals, ",") + "]")
					y[i] = rng.IntN(3)
				}
				users, counts = append(users, id), append(counts, n)
				data[id] = map[string]any{"x": x, "y": y}
			}
			doc["users"], doc["num_samples"], doc["user_data"] = users, counts, data
			if users == nil {
				doc["users"] = []string{}
			}
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.json", f)), b, 0o644)
		}
		oracle, oerr := readLEAFSerial(dir)
		for _, workers := range []int{1, 2, 7} {
			s, err := readLEAFWith(dir, workers, defaultLimits())
			if (err == nil) != (oerr == nil) {
				t.Fatalf("trial %d, %d goroutines: error %v, serial %v", trial, workers, err, oerr)
			}
			if err != nil {
				if err.Error() != oerr.Error() {
					t.Fatalf("trial %d: %v, serial %v", trial, err, oerr)
				}
				continue
			}
			sameLEAF(t, fmt.Sprintf("trial %d, %d goroutines", trial, workers), s, oracle)
		}
	}
}

// leafValues are a split's x values as float64s (8-bit storage decoded
// through its levels).
func leafValues(s *leafSplit) []float64 {
	if s.storage == leafFloats {
		return s.x
	}
	lv := pixelLevels
	if s.storage == leafIntegers {
		lv = intLevels
	}
	x := make([]float64, len(s.pix))
	for k, b := range s.pix {
		x[k] = lv[b]
	}
	return x
}
