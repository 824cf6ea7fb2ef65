package cli

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fedlab table (and merge, and the report) shows a halving sweep as one sweep: one grid per algorithm
// with every configuration scored at the rung it stopped at (marked, with
// a footnote), one selection, then the records of the selected
// configurations; not one table per rung with a "best" of its own.
// (9 step sizes, eta 3: 3 continue to rung 2, 1 to rung 3.)
func TestTableShowsAHalvingSweepAsOneSweep(t *testing.T) {
	dir := t.TempDir()
	out := halvingRun(t).dir
	got := mustRunCLI(t, "table", out, "--metric", "objective", "--round", "90")
	want := `Calls 1–3: sweep.lua:3 fedlab.sweep, successive halving: rungs of 10, 30 and 90 rounds
fedavg: min objective (mean over the last 20 rounds)
eta_c                 –
─────  ────────────────
0.001  5.4363 ± 0.0050¹
0.002  5.0619 ± 0.0079¹
0.003  4.7868 ± 0.0091¹
0.005  4.4216 ± 0.0073¹
0.01     1.310 ± 0.023²
0.02   1.0526 ± 0.0087²
0.03   *0.9889 ± 0.0069
0.05         5.3 ± 1.8¹
3          diverged@10¹
¹ stopped at rung 1 of 3 (10 rounds), ² at rung 2 of 3 (30 rounds); unmarked: ran the last rung (90 rounds)
best fedavg: eta_c=0.03 (objective 0.9889)

fedmid: min objective (mean over the last 20 rounds)
eta_c                 –
─────  ────────────────
0.001  5.4838 ± 0.0035¹
0.002  5.1381 ± 0.0056¹
0.003  4.8795 ± 0.0065¹
0.005  4.5269 ± 0.0062¹
0.01     1.402 ± 0.014²
0.02     1.090 ± 0.011²
0.03   *0.8799 ± 0.0083
0.05       4.72 ± 0.96¹
3          diverged@10¹
¹ stopped at rung 1 of 3 (10 rounds), ² at rung 2 of 3 (30 rounds); unmarked: ran the last rung (90 rounds)
best fedmid: eta_c=0.03 (objective 0.8799)

Calls 1–3: sweep.lua:3 fedlab.sweep, successive halving: rungs of 10, 30 and 90 rounds: the selected configurations (mean ± sample std over 2 seeds)
label              round      objective
─────────────────  ─────  ─────────────
fedavg eta_c=0.03     90  0.990 ± 0.013
fedmid eta_c=0.03     90  0.879 ± 0.021
`
	if got != want {
		t.Errorf("fedlab table of a halving sweep:\n%s\nwant:\n%s", got, want)
	}
	// --call names any of its rungs: the same sweep
	if only := mustRunCLI(t, "table", out, "--metric", "objective", "--round", "90", "--call", "2"); only != want {
		t.Errorf("--call 2:\n%s", only)
	}

	// fedlab merge prints the sweep once too
	merged := mustRunCLI(t, "merge", out, "--out", filepath.Join(dir, "merged"))
	if sweep, _, _ := strings.Cut(want, "\n\nCalls 1–3"); merged != sweep+"\n" {
		t.Errorf("fedlab merge of a halving sweep:\n%s\nwant:\n%s", merged, sweep)
	}

	// the report: one section for the sweep, holding the same grids
	page := filepath.Join(dir, "report.html")
	mustRunCLI(t, "report", out, "--out", page)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var sections []string
	for _, m := range regexp.MustCompile(`<h2[^>]*>(.*?)</h2>`).FindAllStringSubmatch(string(b), -1) {
		sections = append(sections, html.UnescapeString(m[1]))
	}
	title := "Calls 1–3: sweep.lua:3 fedlab.sweep, successive halving: rungs of 10, 30 and 90 rounds"
	if strings.Join(sections, "|") != "Script|"+title+"|Diverged and failed runs" {
		t.Errorf("report sections %q, want the sweep as one", sections)
	}
	grids, _, _ := strings.Cut(strings.TrimPrefix(want, title+"\n"), "\n\n"+title)
	m := regexp.MustCompile(`(?s)<h3>Sweep</h3><pre>(.*?)</pre>`).FindStringSubmatch(string(b))
	if m == nil || html.UnescapeString(m[1]) != grids+"\n" {
		t.Errorf("report's sweep grids:\n%v\nwant:\n%s", m, grids)
	}
}
