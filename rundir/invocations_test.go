package rundir

import (
	"strings"
	"testing"

	"github.com/fedlab/fedlab/experiment"
)

// TestAnEarlierInvocationsKeysAreChecked: a manifest whose earlier
// invocation lists a run key that is not a plain file name (it would lead
// out of the directory when --invocation reads its result), or a null
// earlier invocation, is refused when read, naming it.
func TestAnEarlierInvocationsKeysAreChecked(t *testing.T) {
	for _, c := range []struct {
		earlier []*EarlierInvocation
		want    string
	}{
		{[]*EarlierInvocation{{Status: StatusComplete, Calls: []Call{{Call: experiment.Call{Function: "fedlab.run", Where: "s.lua:1"}, Runs: []CallRun{{Key: "../../x"}}}}}},
			`earlier invocation 1: run key "../../x" contains a path separator`},
		{[]*EarlierInvocation{nil}, "earlier invocation 1 is null"},
	} {
		dir := t.TempDir()
		m := newManifest(Script{Path: "s.lua", SHA256: "a"}, StatusComplete)
		m.Earlier = c.earlier
		if err := m.write(dir); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadManifest(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadManifest: %v, want an error containing %q", err, c.want)
		}
	}
}

// TestInvocationsAreNumberedOldestFirst: Select(n) shows invocation n's
// calls, status and invocation; 0 and the last number are the manifest;
// other numbers are refused naming the range.
func TestInvocationsAreNumberedOldestFirst(t *testing.T) {
	m := newManifest(Script{Path: "/x/s.lua", SHA256: "b"}, StatusComplete)
	m.Invocation = &Invocation{CommandLine: []string{"fedlab", "run", "s.lua", "--out", "d"}}
	m.Calls = []Call{{Call: experiment.Call{Function: "fedlab.run", Where: "s.lua:1"}, Runs: []CallRun{{Key: "bb"}}}}
	m.Earlier = []*EarlierInvocation{{Invocation: &Invocation{CommandLine: []string{"fedlab", "run", "s.lua", "--out", "d", "--set", "rounds=40"}, Set: map[string]string{"rounds": "40"}},
		Script: Script{Path: "/x/s.lua", SHA256: "a"}, Status: StatusInterrupted, Calls: []Call{{Call: experiment.Call{Function: "fedlab.run", Where: "s.lua:1"}, Runs: []CallRun{{Key: "aa"}}}}}}
	first, err := m.Select(1)
	if err != nil || first.Calls[0].Runs[0].Key != "aa" || first.Status != StatusInterrupted || first.Script.SHA256 != "a" || first.Invocation.Set["rounds"] != "40" {
		t.Errorf("Select(1) = %+v, %v", first, err)
	}
	for _, n := range []int{0, 2} {
		if v, err := m.Select(n); err != nil || v != m {
			t.Errorf("Select(%d) = %p, %v; want the manifest", n, v, err)
		}
	}
	if _, err := m.Select(3); err == nil || err.Error() != "--invocation 3: the directory holds the runs of 2 invocations (1 to 2; 2, the last, is the default)" {
		t.Errorf("Select(3): %v", err)
	}
	want := "d also stores the runs of 1 other invocation:\n  1: fedlab run s.lua --out d --set rounds=40 (1 run, interrupted)\nshow them with --invocation N (this is invocation 2 of 2)"
	if got := m.OthersNote("d", 0); got != want {
		t.Errorf("OthersNote:\n%s\nwant\n%s", got, want)
	}
	if !sameInvocation(m.Invocation, &Invocation{}) || sameInvocation(m.Invocation, m.Earlier[0].Invocation) || setText(m.Earlier[0].Invocation) != "--set rounds=40" {
		t.Errorf("sameInvocation / setText")
	}
}
