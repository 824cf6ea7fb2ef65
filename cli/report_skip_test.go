package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// fedlab report --skip-round0 leaves round 0 out of the report's figures,
// as fedlab plot --skip-round0 does: the figures change (the LASSO
// objective at round 0 sets the y range of the figures with it).
func TestReportSkipsRound0(t *testing.T) {
	out := sharedArgsRunDir(t)
	with, without := filepath.Join(t.TempDir(), "with.html"), filepath.Join(t.TempDir(), "without.html")
	if code, _, stderr := runCLI("report", out, "--out", with); code != 0 {
		t.Fatalf("report: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI("report", out, "--out", without, "--skip-round0"); code != 0 {
		t.Fatalf("report --skip-round0: exit %d, %s", code, stderr)
	}
	a, err := os.ReadFile(with)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(without)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) == string(b) {
		t.Error("the report is the same with and without --skip-round0")
	}
}
