package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// init = "zeros" on a network with hidden layers is refused at the call,
// before any run, saying why and what to use; the same network with the
// default init, and a network without hidden layers with "zeros", run.
func TestZeroInitOfANetworkIsRefused(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	header := []string{"label"}
	for j := range 16 {
		header = append(header, fmt.Sprintf("p%d", j))
	}
	csv.WriteString(strings.Join(header, ",") + "\n")
	for i := range 40 {
		row := []string{fmt.Sprint(i % 2)}
		for j := range 16 {
			row = append(row, fmt.Sprintf("%.2f", float64((i*7+j*3)%10)/10))
		}
		csv.WriteString(strings.Join(row, ",") + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "images.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	script := func(loss, init string) string {
		src := fmt.Sprintf(`local data = fedlab.data.csv{ path = "images.csv", classes = 2, clients = 2 }
local problem = fedlab.problem{ data = data, loss = %s }
fedlab.compare{ problem = problem, algorithms = { fedlab.algo.fedavg{ eta_c = 0.1 } }, rounds = 2, local_steps = 1,
  seeds = { 1 }%s }
`, loss, init)
		path := filepath.Join(dir, "init.lua")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const cnn = `fedlab.loss.cnn{ channels = { 2 }, kernel = 2, padding = { 0 }, pool = 2, dense = {} }`
	for _, loss := range []string{cnn, `fedlab.loss.mlp{ hidden = { 4 } }`} {
		code, _, stderr := runCLI("run", script(loss, `, init = "zeros"`), "--out", filepath.Join(dir, "zeros"), "--quiet")
		want := `fedlab: init.lua:3: fedlab.compare: loss "` + strings.TrimPrefix(strings.SplitN(loss, "{", 2)[0], "fedlab.loss.")
		if code != 1 || !strings.HasPrefix(stderr, want) ||
			!strings.Contains(stderr, `init = "zeros": the loss's hidden layers cannot learn from a zero model (every hidden unit gets the same, zero, gradient); leave init out for the loss's default ("kaiming_uniform"), or give init = "normal" with an init_scale`) {
			t.Errorf("%s with init = zeros: exit %d\n%s\nwant exit 1 and %q…", loss, code, stderr, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "zeros", "records.csv")); err == nil {
			t.Errorf("%s: records were written before the refusal", loss)
		}
		if code, _, stderr := runCLI("run", script(loss, ""), "--out", filepath.Join(dir, "default"), "--quiet", "--fresh"); code != 0 {
			t.Errorf("%s with the default init: exit %d\n%s", loss, code, stderr)
		}
	}
	if code, _, stderr := runCLI("run", script(`fedlab.loss.mlp{ hidden = {} }`, `, init = "zeros"`), "--out", filepath.Join(dir, "convex"), "--quiet"); code != 0 {
		t.Errorf("an MLP without hidden layers with init = zeros: exit %d\n%s", code, stderr)
	}
}
