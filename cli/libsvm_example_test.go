package cli

import (
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scripts/libsvm_example.lua runs on a binary LIBSVM file given with --set
// path=FILE (here a generated, gzipped one: compression is recognized by
// content), and stops with a message naming the file and the flag when the
// file is absent.
func TestLIBSVMExampleScript(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "two_classes.svm.gz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		label := 2*rng.IntN(2) - 1
		line := fmt.Sprintf("%+d", label)
		for j := 1; j <= 12; j++ {
			if rng.Float64() < 0.4 { // sparse rows; feature 1 carries the label
				line += fmt.Sprintf(" %d:%.3f", j, rng.NormFloat64()+float64(label)*float64(min(1, 2-j)))
			}
		}
		fmt.Fprintln(zw, line)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join("..", "scripts", "libsvm_example.lua")

	code, stdout, stderr := runCLI("run", script, "--out", filepath.Join(dir, "out"), "--quiet", "--set", "path="+file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{file + ": 20 clients, 12 features", "FedDualAvg", "FedMiD", "FedAvg", "test_accuracy"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	missing := filepath.Join(dir, "absent.svm.bz2")
	code, _, stderr = runCLI("run", script, "--out", filepath.Join(dir, "out2"), "--quiet", "--set", "path="+missing)
	if code == 0 || !strings.Contains(stderr, "cannot load the LIBSVM file "+missing) || !strings.Contains(stderr, "--set path=FILE") {
		t.Errorf("absent file: exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
		t.Errorf("Go dump in %q", stderr)
	}
}
