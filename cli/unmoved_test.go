package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/rundir"
)

// A network whose updates are all zero (FedAvg with eta_c = 0, from the
// default initialization) is flagged where the user reads the runs'
// status: in fedlab run's summary (also with --quiet), in fedlab table
// and in the HTML report, with the exact note; the same network with a
// step size is not; the Lua result carries unmoved_at. A LASSO whose λ
// makes zero optimal is flagged with the same fact, which the note's
// first explanation covers (FedAvg, which ignores ψ, moves).
func TestUnmovedModelIsReported(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("label,p0,p1,p2,p3,p4,p5,p6,p7,p8\n")
	for i := range 40 {
		row := []string{fmt.Sprint(i % 2)}
		for j := range 9 {
			row = append(row, fmt.Sprintf("%.2f", float64((i*7+j*3)%10)/10))
		}
		csv.WriteString(strings.Join(row, ",") + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "images.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, problem, algos string }{
		{"cnn", `fedlab.problem{ data = fedlab.data.csv{ path = "images.csv", classes = 2, clients = 2 },
  loss = fedlab.loss.cnn{ channels = { 2 }, kernel = 2, padding = { 0 }, pool = 2, dense = {} } }`,
			`fedlab.algo.fedavg{ eta_c = 0, label = "still" }, fedlab.algo.fedavg{ eta_c = 0.1, label = "moving" }`},
		{"mlp", `fedlab.problem{ data = fedlab.data.csv{ path = "images.csv", classes = 2, clients = 2 },
  loss = fedlab.loss.mlp{ hidden = { 4 } } }`,
			`fedlab.algo.fedavg{ eta_c = 0, label = "still" }, fedlab.algo.fedavg{ eta_c = 0.1, label = "moving" }`},
		{"lasso, lambda 1000", `fedlab.problem{ data = fedlab.data.lasso{ variant = "custom", clients = 2, samples = 10, dim = 5, support = 2, test_samples = 5 },
  loss = fedlab.loss.squared{ intercept = false }, reg = fedlab.reg.l1{ lambda = 1000 } }`,
			`fedlab.algo.fedmid{ eta_c = 0.01, label = "still" }, fedlab.algo.fedavg{ eta_c = 0.01, label = "moving" }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(`local problem = %s
local runs = fedlab.compare{ problem = problem, algorithms = { %s }, rounds = 6, eval_every = 2, local_steps = 1, seeds = { 1 } }
print("unmoved_at", runs[1].unmoved_at, runs[2].unmoved_at)
`, tc.problem, tc.algos)
			script := filepath.Join(dir, "unmoved.lua")
			if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out-"+strings.Fields(tc.name)[0])
			code, stdout, stderr := runCLI("run", script, "--out", out, "--quiet")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if !strings.Contains(stdout, "unmoved_at\t4\tnil") {
				t.Errorf("Lua results: %q, want unmoved_at 4 for the first run, nil for the second", stdout)
			}
			m, _, err := rundir.ReadManifest(out)
			if err != nil {
				t.Fatal(err)
			}
			key := m.Calls[0].Runs[0].Key
			note := core.UnmovedNote(4)
			want := "fedlab: 2 runs (2 ran, 1 did not move) in " + out + "\n" +
				"fedlab: note: unmoved.lua:3 fedlab.compare: still seed 1 (run " + key + "): " + note + "\n"
			if stderr != want {
				t.Errorf("fedlab run's stderr:\n%s\nwant\n%s", stderr, want)
			}
			code, _, stderr = runCLI("table", out)
			if want := "fedlab: note: call 1: still seed 1: " + note + "\n"; code != 0 || stderr != want {
				t.Errorf("fedlab table: exit %d, stderr\n%s\nwant\n%s", code, stderr, want)
			}
			if code, _, stderr := runCLI("report", out); code != 0 {
				t.Fatalf("report: exit %d, %s", code, stderr)
			}
			html := read(t, out, "report.html")
			row := `<td>still</td><td class="num">1</td><td>done</td><td>` + strings.ReplaceAll(note, `"`, "&#34;") + `</td>`
			if !strings.Contains(html, `<h2 id="unmoved">Runs whose model did not move</h2>`) || !strings.Contains(html, row) || strings.Contains(html, "<td>moving</td><td class=\"num\">1</td><td>done</td>") {
				t.Errorf("report lacks the section or the row %q, or lists the moving run", row)
			}
		})
	}
}
