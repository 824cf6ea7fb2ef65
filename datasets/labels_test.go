package datasets

import (
	"path/filepath"
	"strings"
	"testing"
)

// filterLabelsList is the labels list the tests filter with: 4 of 6 labels,
// out of order (relabelled 5→0, 0→1, 2→2, 3→3), so partitionCases'
// classes = 4 apply.
var filterLabelsList = []int{5, 0, 2, 3}

// TestLEAFLabelsEqualTheRowsKept: a LEAF split read with labels gives,
// value for value, the dataset of the kept rows written as CSV (natural
// partition: each writer's kept rows together and in order; the other
// partitions), and the dataset of the kept rows written as LEAF, with
// min_samples counting the kept samples (a writer with enough samples but
// too few kept ones is dropped) and the test split filtered alike.
func TestLEAFLabelsEqualTheRowsKept(t *testing.T) {
	tb, _ := byteTable(40, 3, 6, 5) // labels i mod 6
	testTab, _ := byteTable(24, 3, 6, 5)
	kept, keptTest := tb.FilterLabels(filterLabelsList), testTab.FilterLabels(filterLabelsList)
	users := []string{"w0", "w1", "w2", "w3", "w4"}
	dir, testDir, keptDir, keptTestDir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	writeLEAF(t, dir, tb, map[string][]string{"a.json": users[:3], "b.json": users[3:]})
	writeLEAF(t, testDir, testTab, map[string][]string{"t.json": users})
	writeLEAF(t, keptDir, kept, map[string][]string{"a.json": users})
	writeLEAF(t, keptTestDir, keptTest, map[string][]string{"t.json": users})
	labels := []any{5, 0, 2, 3}

	f := build(t, "leaf", map[string]any{"path": dir, "classes": 4, "labels": labels})
	sameFederated(t, f, kept.CSVTwin(t, map[string]any{"classes": 4}))
	naturalKeepsWriters(t, f, kept)
	plain := table{X: kept.X, Y: kept.Y}
	for _, raw := range partitionCases {
		args := map[string]any{"path": dir, "partition": "iid", "labels": labels}
		for k, v := range raw {
			args[k] = v
		}
		sameFederated(t, build(t, "leaf", args), plain.CSVTwin(t, raw))
	}

	all, some := map[string]int{}, map[string]int{}
	for _, c := range tb.Client {
		all[c]++
	}
	for _, c := range kept.Client {
		some[c]++
	}
	const minSamples = 5
	dropped, left := 0, 0
	for _, u := range users {
		if all[u] >= minSamples && some[u] < minSamples {
			dropped++
		}
		if some[u] >= minSamples {
			left++
		}
	}
	if dropped == 0 || left < 2 {
		t.Fatalf("the fixture should have a writer with %d samples, fewer kept (kept %v of %v)", minSamples, some, all)
	}
	f = build(t, "leaf", map[string]any{"path": dir, "test": testDir, "classes": 4, "labels": labels, "min_samples": minSamples})
	if len(f.Train) != left {
		t.Fatalf("%d clients, want the %d writers with ≥ %d kept samples", len(f.Train), left, minSamples)
	}
	sameFederated(t, f, build(t, "leaf", map[string]any{"path": keptDir, "test": keptTestDir, "classes": 4, "min_samples": minSamples}))
	if f.Train[0].Y[0] != 1 || kept.Y[0] != 1 || tb.Y[0] != 0 {
		t.Fatalf("label 0 should read as class 1 (listed second): %v", f.Train[0].Y[0])
	}
}

// TestLabelsErrors: a labels list that is not a set of labels, that does
// not match classes, that keeps no sample or lists a label no training
// sample has is refused naming the file; a message about a kept row names
// its place in the file, not among the rows kept.
func TestLabelsErrors(t *testing.T) {
	tb, _ := byteTable(12, 3, 3, 3) // labels i·7 mod 3 = i mod 3
	dir := t.TempDir()
	writeLEAF(t, dir, tb, map[string][]string{"d.json": {"w0", "w1", "w2"}})
	leafPath := filepath.Join(dir, "d.json")
	stranger := table{X: [][]float64{tb.X[0], tb.X[1]}, Y: []int{0, 1}, Client: []string{"zz", "zz"}}
	writeLEAF(t, dir, stranger, map[string][]string{"s.json": {"zz"}})
	for _, c := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"labels": []any{1, 1}}, "labels lists 1 twice (labels[1] and labels[2])"},
		{map[string]any{"labels": []any{0, 1.5}}, "labels[2] = 1.5 is not a class label (an integer ≥ 0)"},
		{map[string]any{"labels": []any{0, 2}, "classes": 3}, "labels lists 2 labels, which become classes 0..1 in the listed order: set classes = 2, not 3"},
		{map[string]any{"labels": []any{7, 8}}, ": no sample has a label in labels = {7, 8}"},
		{map[string]any{"labels": []any{2, 7}}, ": labels = {2, 7} lists 7, which no training sample has (class 1 would be empty)"},
	} {
		args := merged(map[string]any{"classes": 2, "path": leafPath}, c.raw)
		want := c.want
		if strings.HasPrefix(want, ":") {
			want = leafPath + want
		}
		if err := buildErr(t, "leaf", args); !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", args, err, want)
		}
	}
	// the stranger's row 1 (label 1) is its only kept row
	if err := buildErr(t, "leaf", map[string]any{"path": leafPath, "test": filepath.Join(dir, "s.json"), "classes": 2, "labels": []any{2, 1}}); !strings.Contains(err.Error(),
		filepath.Join(dir, "s.json")+": user \"zz\" sample 1: writer \"zz\" has no training samples") {
		t.Errorf("leaf: %v", err)
	}
}
