package cli

import (
	"context"
	"errors"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestHelpOnEveryCommandExitsZero(t *testing.T) {
	for _, cmd := range []string{"run", "table", "plot", "report", "merge", "list", "describe", "docs", "version", "help"} {
		for _, flag := range []string{"--help", "-h", "-help"} {
			code, stdout, stderr := runCLI(cmd, flag)
			if code != 0 || !strings.Contains(stdout, "usage:") || stderr != "" {
				t.Errorf("fedlab %s %s: exit %d, stdout %.40q, stderr %q; want 0 and the usage", cmd, flag, code, stdout, stderr)
			}
		}
	}
	if code, stdout, _ := runCLI("run", "x.lua", "--out", "d", "--help"); code != 0 || !strings.Contains(stdout, "--set K=V") {
		t.Errorf("help after arguments: exit %d", code)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, _ := runCLI(args...)
		if code != 0 || !strings.HasPrefix(stdout, "fedlab ") || !strings.Contains(stdout, runtime.Version()) {
			t.Errorf("fedlab %v: exit %d, %q", args, code, stdout)
		}
	}
	if code, _, _ := runCLI("version", "x"); code != 2 {
		t.Errorf("version with an argument: exit %d, want 2", code)
	}
}

// argsScript compares two algorithms; only FedMiD's step size comes from
// fedlab.args, and it checks the types of the arguments.
const argsScript = `assert(type(fedlab.args.eta) == "number", "eta is a " .. type(fedlab.args.eta))
assert(fedlab.args.name == nil or type(fedlab.args.name) == "string")
assert(fedlab.args.flag == nil or fedlab.args.flag == true)
-- free text that must be escaped in the report: <b>not bold</b> & "quotes"
local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 4, samples = 16 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.01 } }
local runs = fedlab.compare{ problem = problem, rounds = 20, local_steps = 2, seeds = { 1, 2 },
  algorithms = { fedlab.algo.fedavg{ eta_c = 0.05 }, fedlab.algo.fedmid{ eta_c = fedlab.args.eta } },
  metrics = { "objective", "l2_error", "nnz" }, name = fedlab.args.title }
fedlab.table(runs, { file = "table.tex", bold = true })
print("name=" .. tostring(fedlab.args.name))
`

func writeArgsScript(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "args.lua")
	if err := os.WriteFile(path, []byte(argsScript), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSetArgumentsChangeOnlyTheRunsTheyAffect(t *testing.T) {
	dir := t.TempDir()
	script := writeArgsScript(t, dir)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI("run", script, "--out", out, "--set", "eta=0.05", "--set", "name=a b", "--set", "flag=true")
	if code != 0 || !strings.Contains(stdout, "name=a b\n") || !strings.Contains(stderr, "4 runs (4 ran)") {
		t.Fatalf("first run: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// a new step size for FedMiD: its two runs are new, FedAvg's are reused
	code, stdout, stderr = runCLI("run", script, "--out", out, "--set", "eta=0.1")
	if code != 0 || !strings.Contains(stdout, "name=nil\n") || !strings.Contains(stderr, "4 runs (2 ran, 2 reused)") {
		t.Errorf("second run: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := runCLI("run", script, "--out", out, "--set", "eta"); code != 2 || !strings.Contains(stderr, `--set "eta": want key=value`) {
		t.Errorf("--set without a value: exit %d, %q", code, stderr)
	}
	tex := read(t, out, "table.tex")
	if !strings.Contains(tex, `\toprule`) || !strings.Contains(tex, `\mathbf{`) {
		t.Errorf("table.tex:\n%s", tex)
	}
}

// sharedArgsRunDir is uninterrupted's run of the args script (with
// --set eta=0.05), for the tests that only read the directory.
func sharedArgsRunDir(t *testing.T) string {
	t.Helper()
	return uninterrupted(t, "args.lua", argsScript, "--set", "eta=0.05")
}

// argsRunDir runs the args script into a new run directory.
func argsRunDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("run", writeArgsScript(t, dir), "--out", out, "--set", "eta=0.05", "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return out
}

func TestTableCommandExports(t *testing.T) {
	out := argsRunDir(t)
	for format, want := range map[string][]string{
		"text":  {"Call 1: args.lua:7 fedlab.compare (mean ± sample std over 2 seeds)", "label   round  objective  l2_error  nnz"},
		"md":    {"| label  | round | objective Φ(w) | ℓ2 error ‖w − w\\*‖₂ |", "|:-------|------:|---------------:|", "Table: Call 1"},
		"latex": {`\begin{tabular}{lrrrr}`, `\toprule`, `mean \ensuremath{\pm} sample std`, `objective \ensuremath{\Phi}(w)`},
		"csv":   {"label,round,objective,objective_std,objective_n,", "fedmid,0,"},
	} {
		code, stdout, stderr := runCLI("table", out, "--format", format, "--bold")
		if code != 0 {
			t.Fatalf("table --format %s: exit %d, %s", format, code, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stdout, w) {
				t.Errorf("table --format %s lacks %q:\n%s", format, w, stdout)
			}
		}
	}
	if code, _, _ := runCLI("table", out, "--format", "html"); code != 2 {
		t.Errorf("an unknown format: exit %d, want 2", code)
	}
	file := filepath.Join(out, "t.md")
	if code, _, stderr := runCLI("table", out, "--format", "md", "--out", file); code != 0 || !strings.Contains(read(t, out, "t.md"), "| label ") {
		t.Errorf("table --out: exit %d, %s", code, stderr)
	}
	// a call named by the script is titled by its name
	named := filepath.Join(t.TempDir(), "named")
	if code, _, stderr := runCLI("run", writeArgsScript(t, t.TempDir()), "--out", named, "--set", "eta=0.05", "--set", "title=LASSO <small>", "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, stdout, _ := runCLI("table", named); code != 0 || !strings.HasPrefix(stdout, "Call 1: LASSO <small> (mean") {
		t.Errorf("named call: exit %d, %q", code, stdout)
	}
	code, stdout, _ := runCLI("plot", out, "--metric", "objective", "--metric", "l2_error", "--panels", "--format", "pdf", "--skip-round0")
	if code != 0 || !strings.Contains(stdout, "call1_objective_l2_error.pdf") {
		t.Errorf("plot --panels: exit %d, %q", code, stdout)
	}
}

// TestReportRendersInHeadlessChromium writes the HTML report of a run
// directory, checks that free text is escaped and the figures are
// inlined, and renders it with a headless Chromium: the screenshot must
// not be blank. Under -short it checks the HTML only (Chromium takes 2 s
// of CPU).
func TestReportRendersInHeadlessChromium(t *testing.T) {
	out := argsRunDir(t)
	code, stdout, stderr := runCLI("report", out)
	page := filepath.Join(out, "report.html")
	if code != 0 || strings.TrimSpace(stdout) != page {
		t.Fatalf("report: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	html := read(t, out, "report.html")
	for _, want := range []string{"&lt;b&gt;not bold&lt;/b&gt; &amp; &#34;quotes&#34;", "data:image/png;base64,",
		"mean ± sample std over 2 seeds", "Diverged and failed runs", "eta_c=0.05"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, external := range []string{"src=\"http", "href=\"http", "<script"} {
		if strings.Contains(html, external) {
			t.Errorf("report is not self-contained: it has %q", external)
		}
	}
	if testing.Short() {
		t.Skip("-short: the HTML is checked; rendering it in Chromium is the full suite's")
	}
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no chromium on PATH: install it (apt-get install -y chromium) to render the report in a real browser")
	}
	abs, _ := filepath.Abs(page)
	shot := filepath.Join(t.TempDir(), "report.png")
	if keep := os.Getenv("FEDLAB_REPORT_SCREENSHOT"); keep != "" {
		shot = keep
	}
	screenshot(t, browser, "file://"+abs, shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 1200 || b.Dy() != 1600 {
		t.Errorf("screenshot is %v, want 1200×1600", b)
	}
	colours := map[[3]uint32]bool{}
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r>>8 < 128 && g>>8 < 128 && bl>>8 < 128 {
				dark++
			}
		}
	}
	// text and figures: many colours, and a visible share of dark (text) pixels
	if len(colours) < 20 || dark < 1000 {
		t.Errorf("the screenshot looks blank: %d colours, %d dark pixels (of %d sampled)", len(colours), dark, b.Dx()*b.Dy()/4)
	}
}

// screenshot renders url in a headless browser into the PNG file shot.
// A browser killed by a signal (a crash of the browser itself, seen once
// in CI as a segmentation fault at start-up) is started again with a fresh
// profile, up to three times, and each crash is logged with its output;
// any other failure, or a third crash, fails the test.
func screenshot(t *testing.T, browser, url, shot string) {
	t.Helper()
	const attempts = 3
	for attempt := 1; attempt <= attempts; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
			"--disable-sync", "--hide-scrollbars", "--user-data-dir="+t.TempDir(), "--screenshot="+shot,
			"--window-size=1200,1600", url)
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		if err == nil {
			return
		}
		var exit *exec.ExitError // ExitCode is -1 for a process killed by a signal
		if timedOut || !errors.As(err, &exit) || exit.ExitCode() != -1 {
			t.Fatalf("%s: %v\n%s", browser, err, out)
		}
		t.Logf("%s crashed (attempt %d of %d): %v\n%s", browser, attempt, attempts, err, out)
	}
	t.Fatalf("%s crashed %d times (their outputs are above)", browser, attempts)
}
