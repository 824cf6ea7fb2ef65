package htmlreport

import (
	"testing"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/rundir"
)

// TestTitlesTellCallsInALoopApart: two compare calls at the same line on
// data differing in one parameter get that parameter in their titles; a
// call at another line keeps the plain title; identical calls get their
// numbers.
func TestTitlesTellCallsInALoopApart(t *testing.T) {
	entry := func(partition string, rounds int) *rundir.Entry {
		return &rundir.Entry{Identity: experiment.Identity{
			Problem: experiment.ProblemID{Data: experiment.NewComponent("fmnist",
				map[string]any{"partition": partition, "clients": 10})},
			Settings: experiment.SettingsID{Rounds: rounds}}}
	}
	m := &rundir.Manifest{Runs: map[string]*rundir.Entry{
		"a": entry("iid", 100), "b": entry("dominant", 100), "c": entry("iid", 50), "d": entry("iid", 50), "e": entry("iid", 50)}}
	for i, k := range []string{"a", "b", "c", "d", "e"} {
		where := "f.lua:35"
		if i >= 2 {
			where = "f.lua:40"
		}
		if i == 2 {
			where = "f.lua:38"
		}
		m.Calls = append(m.Calls, rundir.Call{Call: experiment.Call{Function: "fedlab.compare", Where: where}, Runs: []rundir.CallRun{{Key: k}}})
	}
	m.Calls[2].Name = "the named call"
	want := []string{
		"f.lua:35 fedlab.compare (data.partition=iid)",
		"f.lua:35 fedlab.compare (data.partition=dominant)",
		"the named call",
		"f.lua:40 fedlab.compare (call 4)",
		"f.lua:40 fedlab.compare (call 5)",
	}
	got := Titles(m)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("title %d = %q, want %q", i, got[i], want[i])
		}
	}
}
