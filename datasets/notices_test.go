package datasets

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/registry"
)

// droppingTable has four writers: w0 with labels 0 0 0 1 1 1, w1 with
// 2 2 2, w2 with 0 1 0 1 2 2 and w3 with 0 1.
func droppingTable() table {
	var tb table
	for _, w := range []struct {
		name   string
		labels []int
	}{{"w0", []int{0, 0, 0, 1, 1, 1}}, {"w1", []int{2, 2, 2}}, {"w2", []int{0, 1, 0, 1, 2, 2}}, {"w3", []int{0, 1}}} {
		for _, y := range w.labels {
			tb.X = append(tb.X, []float64{float64(len(tb.X)), float64(y)})
			tb.Y = append(tb.Y, y)
			tb.Client = append(tb.Client, w.name)
		}
	}
	return tb
}

// The writers that labels and min_samples drop from a LEAF split are
// named on the notice channel, with how many of how many and why;
// fraction (asked for as a sample) and a filter that drops none say
// nothing.
func TestLEAFNamesTheWritersItDrops(t *testing.T) {
	dir := t.TempDir()
	writeLEAF(t, dir, droppingTable(), map[string][]string{"train.json": {"w0", "w1", "w2", "w3"}})
	for _, c := range []struct {
		raw     map[string]any
		clients int
		want    string
	}{
		{map[string]any{"labels": []any{0, 1}, "classes": 2}, 3,
			"fedlab: leaf: " + dir + `: 1 of 4 writers dropped (no sample with a label in labels = {0, 1}): "w1"` + "\n"},
		{map[string]any{"labels": []any{0, 1}, "classes": 2, "min_samples": 3}, 2,
			"fedlab: leaf: " + dir + `: 2 of 4 writers dropped (fewer than min_samples = 3 samples with a label in labels = {0, 1}): "w1", "w3"` + "\n"},
		{map[string]any{"classes": 3, "min_samples": 3}, 3,
			"fedlab: leaf: " + dir + `: 1 of 4 writers dropped (fewer than min_samples = 3 samples): "w3"` + "\n"},
		{map[string]any{"classes": 3, "min_samples": 2, "fraction": 0.5}, 2, ""},
		{map[string]any{"labels": []any{2, 1, 0}, "classes": 3, "min_samples": 2}, 4, ""},
	} {
		c.raw["path"] = dir
		f, notices := buildNoting(t, "leaf", c.raw)
		if len(f.Train) != c.clients {
			t.Errorf("%v: %d clients, expected %d", c.raw, len(f.Train), c.clients)
		}
		if notices != c.want {
			t.Errorf("%v: notices\n%q\nexpected\n%q", c.raw, notices, c.want)
		}
	}
}

// A notice names the first five writers dropped and counts the others;
// a name from the data file is quoted and escaped.
func TestDroppedWritersNoticeIsShortAndEscaped(t *testing.T) {
	var b bytes.Buffer
	c := registry.BuildContext{Notices: &b}
	noteDropped(c, "leaf", "d\x1b[2J", 9, []string{"a", "b", "c\n", "d", "e", "f", "g"}, "why")
	want := `fedlab: leaf: "d\x1b[2J": 7 of 9 writers dropped (why): "a", "b", "c\n", "d", "e" and 2 more` + "\n"
	if b.String() != want {
		t.Errorf("got\n%q\nexpected\n%q", b.String(), want)
	}
	if strings.Count(b.String(), "\n") != 1 {
		t.Errorf("the notice is not one line: %q", b.String())
	}
}
