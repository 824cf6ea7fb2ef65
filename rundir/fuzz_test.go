package rundir

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadManifest: any bytes as a run directory's manifest give a
// Loaded directory or an error, never a panic (a manifest with rounds =
// 1e300 reported a Go struct path; a damaged one must be named, not crash).
func FuzzReadManifest(f *testing.F) {
	f.Add([]byte(`{"format":"fedlab-run/1","status":"complete","calls":[],"runs":{}}`))
	f.Add([]byte(`{"format":"fedlab-run/1","calls":[{"function":"fedlab.compare","where":"s.lua:3","runs":[{"key":"ab","label":"x","seed":1}]}],"runs":{"ab":{"status":"done","result":"results/ab.json","settings":{"rounds":1e300}}}}`))
	f.Add([]byte(`{"format":"fedlab-run/1","calls":[{"runs":[{"key":"../../etc/passwd"}]}],"runs":{"../../etc/passwd":{"status":"done"}}}`))
	f.Add([]byte(`{"format":`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadManifest(dir); err != nil {
			return
		}
		Load(dir) // an error or a directory; a panic fails the fuzz run
	})
}
