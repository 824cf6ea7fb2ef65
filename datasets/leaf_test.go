package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			for i, c := range tb.client {
				if c == u {
					d.X = append(d.X, tb.x[i])
					d.Y = append(d.Y, tb.y[i])
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
	sameFederated(t, f, tb.csvTwin(t, map[string]any{"classes": 4}))
	naturalKeepsWriters(t, f, tb)
	plain := table{x: tb.x, y: tb.y}
	for _, raw := range partitionCases {
		args := map[string]any{"path": dir, "partition": "iid"}
		for k, v := range raw {
			args[k] = v
		}
		sameFederated(t, build(t, "leaf", args), plain.csvTwin(t, raw))
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
	for _, c := range tb.client {
		count[c]++
	}
	f := build(t, "leaf", map[string]any{"path": dir, "test": testDir, "classes": 4, "min_samples": 5, "fraction": 0.75, "seed": 3})
	if len(f.Train) != 3 {
		t.Fatalf("%d clients, want round(0.75 × 4 users with ≥ 5 samples) = 3", len(f.Train))
	}
	last := ""
	for m, d := range f.Train {
		w := tb.client[rowOf(t, tb, d.Row(0))]
		if w <= last || count[w] < 5 || d.N != count[w] {
			t.Fatalf("client %d: writer %s with %d rows after %s (file order, ≥ 5 samples)", m, w, d.N, last)
		}
		last = w
		k := 0
		for i, c := range testTab.client {
			if c == w {
				if f.Test[m].Row(k)[0] != testTab.x[i][0] {
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
	tb.client[0] = "stranger"
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
	if got, what, _ := a.Spec().Size(a); got != 12*4*8 || what != "training samples = 12, features = 3" {
		t.Errorf("declared %d (%q)", got, what)
	}
}
