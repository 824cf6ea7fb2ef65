package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/atomicfile"
)

// OptimaDir holds the stored reference optima (optima/KEY.json), keyed by
// the problem's identity, the λ of the solve and the solver settings.
const OptimaDir = "optima"

// optimumFormat identifies the format of a stored optimum.
const optimumFormat = "fedlab-optimum/1"

// optimumKey is what identifies a stored optimum: a change of any part
// (the problem, λ, the solver or its settings) is another key, so a stored
// optimum of a changed problem is never used.
type optimumKey struct {
	Problem     experiment.ProblemID `json:"problem"`
	Lambda      float64              `json:"lambda"`
	Solver      string               `json:"solver"`
	Certificate string               `json:"certificate"` // what Tol bounds (core.CertificateName)
	MaxIters    int                  `json:"max_iters"`
	Tol         float64              `json:"tol"`
}

// hash is the file name stem of the key.
func (k optimumKey) hash() (string, []byte, error) {
	j, err := json.Marshal(k)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(j)
	return hex.EncodeToString(sum[:12]), j, nil
}

// storedOptimum is the content of optima/KEY.json.
type storedOptimum struct {
	Format string          `json:"format"`
	Fedlab string          `json:"fedlab_version"`
	Key    json.RawMessage `json:"key"`
	Iters  int             `json:"iters"`
	// Change is the last relative change (core.Reference.Change); absent
	// when it is not finite (the last iteration was a momentum restart).
	Change *float64 `json:"change,omitempty"`
	// Residual is the optimality certificate (core.Reference.Residual);
	// absent when it is not finite.
	Residual  *float64  `json:"residual,omitempty"`
	Objective float64   `json:"objective"`
	W         []float64 `json:"w"`
}

// optimumStore is a core.ReferenceStore on a run directory for one
// problem. Its methods are called from run goroutines too: they only read
// and write files (the directory is prepared by Execute before any run
// starts, or by the script's goroutine for fedlab.optimum).
type optimumStore struct {
	d  *Dir
	id experiment.ProblemID
}

// ReferenceStore returns the store of the reference optima of the problem
// id in the directory (nil for a directory kept in memory: every session
// solves again).
func (d *Dir) ReferenceStore(id experiment.ProblemID) core.ReferenceStore {
	if d.readPath() == "" {
		return nil
	}
	return &optimumStore{d: d, id: id}
}

func (s *optimumStore) key(lambda float64, solver string, set core.SolveSettings) optimumKey {
	return optimumKey{Problem: s.id, Lambda: lambda, Solver: solver, Certificate: core.CertificateName,
		MaxIters: set.MaxIters, Tol: set.Tol}
}

// LoadReference reads the optimum stored for λ, the solver and the settings. A file
// written by another fedlab build is not used (the solve may differ): the
// optimum is solved again and replaces it; a replay (DirOptions.Replay) uses
// it, as it uses the stored runs of that build. So is a file whose size and
// SHA-256 the manifest does not record as its session stored it (edited,
// replaced, or written by a session killed before its manifest was), and
// a link or anything but a regular file in its place, with a notice
// naming it. A file that matches its record but is damaged (it does not
// decode, holds impossible values, or its key is not the one asked for:
// the manifest was edited too) is an error naming it.
func (s *optimumStore) LoadReference(lambda float64, solver string, set core.SolveSettings) (*core.Reference, bool, error) {
	stem, want, err := s.key(lambda, solver, set).hash()
	if err != nil {
		return nil, false, err
	}
	name := stem + ".json"
	rec := s.d.optimumSum(name)
	b, err := ReadFile(s.d.readPath(), OptimaDir+"/"+name, rec.Size)
	path := filepath.Join(s.d.readPath(), OptimaDir, name)
	var refused *RefusedError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case errors.As(err, &refused) && refused.Path == path: // a link, a pipe, another size than recorded: replaced by the solve
		s.d.notice("%s; solving it again", refused.Error())
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	switch got := sumOf(b); {
	case rec.SHA256 == "":
		s.d.notice("%s: the manifest records no checksum of it (written by an older fedlab, or by a session that ended before recording it); solving it again", path)
		return nil, false, nil
	case got.SHA256 != rec.SHA256:
		s.d.notice("%s: altered: its SHA-256 is %.12s…, the manifest recorded %.12s…; solving it again", path, got.SHA256, rec.SHA256)
		return nil, false, nil
	}
	var o storedOptimum
	if err := json.Unmarshal(b, &o); err != nil || o.Format != optimumFormat {
		return nil, false, fmt.Errorf("%s is not a stored optimum (%s); delete it to solve again", path, describeBad(err, o.Format))
	}
	var got optimumKey
	if err := json.Unmarshal(o.Key, &got); err != nil {
		return nil, false, fmt.Errorf("%s is not a stored optimum (its key: %v); delete it to solve again", path, err)
	}
	if _, canon, err := got.hash(); err != nil || string(canon) != string(want) {
		return nil, false, fmt.Errorf("%s holds the optimum of another problem or solver than its name says; delete it to solve again", path)
	}
	if o.Iters < 0 || len(o.W) == 0 {
		return nil, false, fmt.Errorf("%s is not a stored optimum (iters %d, %d weights); delete it to solve again", path, o.Iters, len(o.W))
	}
	if o.Fedlab != Version() && s.d.path != "" { // a replay reads what the stored runs were measured against
		return nil, false, nil
	}
	return &core.Reference{W: o.W, Objective: o.Objective, Lambda: lambda, Iters: o.Iters,
		Change: unstore(o.Change), Residual: unstore(o.Residual), Solver: solver}, true, nil
}

// describeBad says why a stored optimum was not read.
func describeBad(err error, format string) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("format %q, want %q", format, optimumFormat)
}

// StoreReference writes ref under its key, atomically.
func (s *optimumStore) StoreReference(ref *core.Reference, set core.SolveSettings) error {
	stem, key, err := s.key(ref.Lambda, ref.Solver, set).hash()
	if err != nil {
		return err
	}
	if s.d.path == "" { // a replay writes nothing
		return nil
	}
	if err := s.d.begin(); err != nil {
		return err
	}
	o := storedOptimum{Format: optimumFormat, Fedlab: Version(), Key: key, Iters: ref.Iters,
		Change: store(ref.Change), Residual: store(ref.Residual), Objective: ref.Objective, W: ref.W}
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(s.d.path, OptimaDir, stem+".json"), b); err != nil {
		return err
	}
	s.d.recordOptimum(stem+".json", sumOf(b))
	return nil
}

// optimumSum is what the manifest records of the stored optimum name
// (zero if nothing).
func (d *Dir) optimumSum(name string) FileSum {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s := d.m.Optima[name]; s != nil {
		return *s
	}
	return FileSum{}
}

// recordOptimum records the size and checksum of the stored optimum
// name, written with the next manifest.
func (d *Dir) recordOptimum(name string, sum FileSum) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m.Optima == nil {
		d.m.Optima = map[string]*FileSum{}
	}
	d.m.Optima[name] = &sum
}

// notice writes a line to the session's notices, if any.
func (d *Dir) notice(format string, args ...any) {
	if d.opts.Notices != nil {
		d.mu.Lock()
		defer d.mu.Unlock()
		fmt.Fprintf(d.opts.Notices, "fedlab: "+format+"\n", args...)
	}
}

// store returns &x, or nil when x is not finite (JSON has no infinities).
func store(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

// unstore reads a value written by store (nil: +Inf).
func unstore(x *float64) float64 {
	if x == nil {
		return math.Inf(1)
	}
	return *x
}

// mergeOptima copies the stored optima of the inputs that out lacks into
// out (they are keyed by what they solve, so equal names hold equal
// optima) and returns what the merged manifest records of them: each
// file is verified against its input's manifest, read as OpenFile reads
// (a link, a named pipe or an altered file stops the merge, named); a
// file its manifest does not record is copied unrecorded (the next
// session solves it again). The output's own optima come first when it is
// one of the inputs.
func mergeOptima(out string, inputs []string, ms []*Manifest) (map[string]*FileSum, error) {
	merged := map[string]*FileSum{}
	seen := map[string]bool{}
	for i, in := range inputs {
		entries, err := os.ReadDir(filepath.Join(in, OptimaDir))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".json") || atomicfile.IsTemp(name) || seen[name] {
				continue
			}
			rec := ms[i].Optima[name]
			var want FileSum
			if rec != nil {
				want = *rec
			}
			b, err := ReadFile(in, OptimaDir+"/"+name, want.Size)
			if err != nil {
				return nil, err
			}
			if got := sumOf(b); want.SHA256 != "" && got.SHA256 != want.SHA256 {
				return nil, fmt.Errorf("%s is altered (SHA-256 %.12s…, its manifest recorded %.12s…); delete it (the next session solves it again), then merge",
					filepath.Join(in, OptimaDir, name), got.SHA256, want.SHA256)
			}
			if !samePath(in, out) {
				dst := filepath.Join(out, OptimaDir, name)
				if _, err := os.Lstat(dst); err == nil {
					continue // out's own file, which its manifest did not list: left unrecorded
				}
				if err := atomicfile.WriteBytes(dst, b); err != nil {
					return nil, err
				}
			}
			seen[name] = true
			if rec != nil {
				merged[name] = rec
			}
		}
	}
	if len(merged) == 0 {
		return nil, nil
	}
	return merged, nil
}
