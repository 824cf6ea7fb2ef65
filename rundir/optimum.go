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
	if d.path == "" {
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
// optimum is solved again and replaces it. A damaged file, or one whose
// key is not the one asked for, is an error naming it.
func (s *optimumStore) LoadReference(lambda float64, solver string, set core.SolveSettings) (*core.Reference, bool, error) {
	stem, want, err := s.key(lambda, solver, set).hash()
	if err != nil {
		return nil, false, err
	}
	path := filepath.Join(s.d.path, OptimaDir, stem+".json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
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
	if o.Fedlab != Version() {
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
	if err := s.d.begin(); err != nil {
		return err
	}
	o := storedOptimum{Format: optimumFormat, Fedlab: Version(), Key: key, Iters: ref.Iters,
		Change: store(ref.Change), Residual: store(ref.Residual), Objective: ref.Objective, W: ref.W}
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(s.d.path, OptimaDir, stem+".json"), b)
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
// optima).
func mergeOptima(out string, inputs []string) error {
	for _, in := range inputs {
		if samePath(in, out) {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(in, OptimaDir))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") || atomicfile.IsTemp(name) {
				continue
			}
			dst := filepath.Join(out, OptimaDir, name)
			if _, err := os.Lstat(dst); err == nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join(in, OptimaDir, name))
			if err != nil {
				return err
			}
			if err := atomicfile.WriteBytes(dst, b); err != nil {
				return err
			}
		}
	}
	return nil
}
