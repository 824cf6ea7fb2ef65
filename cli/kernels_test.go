package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/internal/gemm32"
)

// TestAFloat32RunRecordsItsKernelClass: a session that trains a float32
// model records the class of the float32 kernels it computed with
// (gemm32.Class) in its manifest.
func TestAFloat32RunRecordsItsKernelClass(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var csv strings.Builder
	csv.WriteString("label,a,b,c,d\n")
	for i := range 20 {
		fmt.Fprintf(&csv, "%d,%d,%d,%d,%d\n", i%2, i%3, i%5, i%7, i%4)
	}
	if err := os.WriteFile("rows.csv", []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `local data = fedlab.data.csv{ path = "rows.csv", classes = 2, clients = 2 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.mlp{ hidden = { 4 }, precision = "float32" } }
fedlab.run{ problem = problem, algorithm = fedlab.algo.fedavg{ eta_c = 0.1 }, rounds = 2, local_steps = 1 }
`
	if err := os.WriteFile("f32.lua", []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, 0, "run", "f32.lua", "--out", "d", "--quiet")
	if got, want := fullManifest(t, "d").Float32Kernels, gemm32.Class(); got != want {
		t.Errorf("float32_kernels %q, want %q (gemm32.Class)", got, want)
	}
}

// TestMergeNamesShardsOfDifferentKernelClasses: shards whose manifests
// record different classes of float32 kernels merge with a notice naming
// each class and its shards, and the merged manifest records both; shards
// of one class, or a shard that computed no float32 product (no class)
// beside one of a class, merge without it.
func TestMergeNamesShardsOfDifferentKernelClasses(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeRoundsScript(t, dir, "10")
	for _, d := range []string{"A", "B", "C"} {
		mustCLI(t, 0, "run", "s.lua", "--out", d, "--set", "rounds=40", "--quiet")
	}
	setKernelClass(t, "A", "fma")
	setKernelClass(t, "B", "go-amd64")
	setKernelClass(t, "C", "")
	_, stderr := mustCLI(t, 0, "merge", "A", "B", "--out", "AB")
	want := `fedlab: notice: the directories computed with float32 kernels of different classes ("fma" in A; "go-amd64" in B): their float32 runs may differ in the last bits`
	if !strings.Contains(stderr, want) {
		t.Errorf("merging shards of classes fma and go-amd64:\n%s\nwant %q…", stderr, want)
	}
	if got := fullManifest(t, "AB").Float32Kernels; got != "fma+go-amd64" {
		t.Errorf("merged float32_kernels %q, want %q", got, "fma+go-amd64")
	}
	setKernelClass(t, "B", "fma")
	for _, c := range []struct{ in []string }{{[]string{"A", "B"}}, {[]string{"A", "C"}}} {
		out := strings.Join(c.in, "")
		_, stderr := mustCLI(t, 0, append(append([]string{"merge"}, c.in...), "--out", out+"-same")...)
		if strings.Contains(stderr, "notice") || strings.Contains(stderr, "classes") {
			t.Errorf("merging %v (one class): %s", c.in, stderr)
		}
		if got := fullManifest(t, out+"-same").Float32Kernels; got != "fma" {
			t.Errorf("merged %v: float32_kernels %q, want fma", c.in, got)
		}
	}
}

// setKernelClass sets the float32_kernels field of dir's manifest ("" removes it).
func setKernelClass(t *testing.T, dir, class string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(read(t, dir, "manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "float32_kernels")
	if class != "" {
		m["float32_kernels"] = class
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
