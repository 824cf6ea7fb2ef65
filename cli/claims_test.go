package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/rundir"
)

// claimsScript is a small LASSO comparison with one claim that holds, one
// that fails on purpose, one whose round is not evaluated and a general
// check; rounds comes from --set.
const claimsScript = `local data = fedlab.data.lasso{ variant = "custom", dim = 20, support = 4, clients = 4, samples = 20, test_samples = 5, seed = 1 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.01 } }
local rounds = fedlab.args.rounds or 20
local runs = fedlab.compare{ problem = problem, rounds = rounds, clients_per_round = 4, batch = 5, local_steps = 2, seeds = { 1, 2 }, eval_every = 5,
  metrics = { "objective", "density" },
  algorithms = { fedlab.algo.feddualavg{ eta_c = 0.01, eta_s = 1, label = "DA" }, fedlab.algo.fedavg{ eta_c = 0.01, eta_s = 1, label = "Avg" } } }
print("the script's own output")
fedlab.claim{ text = "the objective decreases", source = "Test Fig. 1", runs = runs, label = "DA", metric = "objective",
  slope_at_most = 0, from = 0 }
local verdict = fedlab.claim{ text = "a false claim: DA's objective is at most 0", runs = runs, label = "DA", metric = "objective",
  at_most = 0, at = rounds }
print("verdict returned to the script: " .. verdict)
fedlab.claim{ text = "a round never evaluated", runs = runs, label = "Avg", metric = "density", at = 3, at_least = 0 }
fedlab.claim{ text = "four runs", runs = runs, check = function(rs) return #rs == 4, #rs .. " runs" end }
`

// TestClaimsTableAfterTheRunAndFromTheDirectory: fedlab run ends with the
// claims table and exits 0 although a claim fails; the directory holds
// claims.json and the manifest's claims; fedlab claims DIR prints the same
// table from the stored runs (with the session's --set), changing nothing
// in the directory; --strict exits 4.
func TestClaimsTableAfterTheRunAndFromTheDirectory(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	tmp := t.TempDir()
	script := filepath.Join(tmp, "claims.lua")
	if err := os.WriteFile(script, []byte(claimsScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	code, stdout, stderr := runCLI("run", script, "--out", out, "--quiet", "--set", "rounds=15")
	if code != 0 {
		t.Fatalf("fedlab run: exit %d (a failed claim is a finding, not an error), stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "verdict returned to the script: fails\n") {
		t.Errorf("fedlab.claim did not return the verdict to the script:\n%s", stdout)
	}
	i := strings.Index(stdout, "\nClaims of claims.lua: ")
	if i < 0 {
		t.Fatalf("no claims table after the run:\n%s", stdout)
	}
	table := stdout[i:]
	for _, want := range []string{
		"Claims of claims.lua: 2 hold, 1 fails, 1 not evaluated\n",
		"1  holds          Test Fig. 1: the objective decreases (claims.lua:8)\n",
		"2  fails          a false claim: DA's objective is at most 0 (claims.lua:10)\n",
		`objective of "DA" at round 15 (each of 2 seeds): highest `,
		"3  not evaluated  a round never evaluated (claims.lua:13)\n",
		`why: "Avg" (seed 1) has no record at round 3 (it evaluated rounds 0, 5, 10, 15)`,
		"4  holds          four runs (claims.lua:14)\n                  4 runs\n",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("claims table lacks %q:\n%s", want, table)
		}
	}
	if !strings.HasSuffix(stdout, "4 runs\n") {
		t.Errorf("the claims table is not the last output:\n%s", stdout)
	}
	// the claims file and the manifest
	var file rundir.Claims
	b, err := os.ReadFile(filepath.Join(out, rundir.ClaimsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &file); err != nil || file.Format != "fedlab-claims/1" || file.Holds != 2 || file.Fails != 1 || file.NotEvaluated != 1 || len(file.Results) != 4 {
		t.Errorf("claims.json: %v, %+v", err, file)
	}
	m, _, err := rundir.ReadManifest(out)
	if err != nil || m.Claims == nil || m.Claims.File != rundir.ClaimsFile || m.Claims.Size != int64(len(b)) || m.Claims.Fails != 1 ||
		m.Claims.Results[1].Verdict != "fails" || m.Claims.Results[1].Where != "claims.lua:10" {
		t.Errorf("manifest claims: %v, %+v", err, m.Claims)
	}
	manifest, _ := os.ReadFile(filepath.Join(out, rundir.ManifestFile))
	// fedlab claims DIR: the same table, from the stored runs (rounds = 15 from the manifest's --set)
	code, again, stderr := runCLI("claims", out)
	if code != 0 || again != table {
		t.Errorf("fedlab claims: exit %d, stderr %s, stdout\n%s\nwant the run's table\n%s", code, stderr, again, table)
	}
	if after, _ := os.ReadFile(filepath.Join(out, rundir.ManifestFile)); string(after) != string(manifest) {
		t.Error("fedlab claims rewrote the manifest: a replay writes nothing")
	}
	if _, err := os.Stat(filepath.Join(out, "the script's own output")); err == nil {
		t.Error("unexpected file")
	}
	// the HTML report's section
	html := filepath.Join(tmp, "report.html")
	if code, _, stderr := runCLI("report", out, "--out", html); code != 0 {
		t.Fatalf("fedlab report: exit %d: %s", code, stderr)
	}
	page, _ := os.ReadFile(html)
	for _, want := range []string{`<li><a href="#claims">Claims</a></li>`, `<h2 id="claims">Claims</h2>`, "2 hold, 1 fail, 1 not evaluated",
		`<td>a false claim: DA&#39;s objective is at most 0 <span class="note">(claims.lua:10)</span></td><td></td><td class="bad">fails</td>`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	code, _, stderr = runCLI("claims", "--strict", out)
	if want := "fedlab: of 4 claims, 1 fail and 1 not evaluated (--strict: exit status 4)\n"; code != 4 || stderr != want {
		t.Errorf("fedlab claims --strict: exit %d, stderr %q; want 4 and %q", code, stderr, want)
	}
	// a run the directory lacks is not computed: its claims are not evaluated
	if err := os.Remove(filepath.Join(out, m.Runs[m.Calls[0].Runs[0].Key].Result)); err != nil {
		t.Fatal(err)
	}
	code, again, _ = runCLI("claims", out)
	if code != 0 || !strings.Contains(again, "Claims of claims.lua: 0 hold, 0 fail, 4 not evaluated") ||
		!strings.Contains(again, `why: "DA" (seed 1) was not computed (a dry run, or a run directory that does not`) {
		t.Errorf("fedlab claims with a run missing: exit %d\n%s", code, again)
	}
}

// TestDryRunListsClaimsAndChecksThem: a dry run names each claim and
// refuses one whose label, metric or round does not exist, at its line.
func TestDryRunListsClaimsAndChecksThem(t *testing.T) {
	tmp := t.TempDir()
	script := filepath.Join(tmp, "claims.lua")
	src := strings.Replace(claimsScript, `fedlab.claim{ text = "a round never evaluated"`, `-- fedlab.claim{ text = "a round never evaluated"`, 1)
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("run", script, "--dry-run")
	if code != 0 || !strings.Contains(stdout, `dry run: fedlab.claim at claims.lua:10: "a false claim: DA's objective is at most 0" (threshold): its runs, metric and rounds exist`) {
		t.Errorf("dry run: exit %d, stderr %s\n%s", code, stderr, stdout)
	}
	if strings.Contains(stdout, "Claims of") {
		t.Errorf("a dry run printed a claims table:\n%s", stdout)
	}
	for _, c := range []struct{ from, to, want string }{
		{`label = "DA", metric = "objective",
  at_most = 0`, `label = "Da", metric = "objective",
  at_most = 0`, `claims.lua:10: fedlab.claim "a false claim: DA's objective is at most 0": no run labelled "Da" among the claim's runs (labels: "DA", "Avg")`},
		{`metric = "objective",
  slope_at_most`, `metric = "f1",
  slope_at_most`, `claims.lua:8: fedlab.claim "the objective decreases": "DA" (seed 1) does not record "f1" (it records "objective", "density")`},
		{`at_most = 0, at = rounds`, `at_most = 0, at = 17`, `claims.lua:10: fedlab.claim "a false claim: DA's objective is at most 0": "DA" (seed 1) has no record at round 17 (it evaluated rounds 0, 5, 10, 15, 20)`},
	} {
		bad := strings.Replace(src, c.from, c.to, 1)
		if err := os.WriteFile(script, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI("run", script, "--dry-run")
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("dry run of a bad claim: exit %d, stderr %q; want 1 and %q", code, stderr, c.want)
		}
	}
}
