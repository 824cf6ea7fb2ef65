package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"time"
	"unicode"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/internal/gemm32"
)

// Names of the files and directories fedlab keeps in a run directory.
const (
	ManifestFile = "manifest.json"
	RecordsFile  = "records.csv"
	ResultsDir   = "results"
	ModelsDir    = "models"
	// LockFile is held by the session writing the directory (see Lock).
	LockFile = "fedlab.lock"
	// ScriptCopyFile is the copy of the script the last session ran
	// (DirOptions.Source), so that the directory shows and redoes what ran.
	ScriptCopyFile = "script.lua"
)

// manifestFormat identifies the manifest's format.
const manifestFormat = "fedlab-run/1"

// Directory statuses.
const (
	StatusRunning  = "running"  // a script is running, or was killed
	StatusComplete = "complete" // the script ran to its end
	StatusStopped  = "stopped"  // a shard stopped at a call with runs of other shards
	StatusFailed   = "failed"   // the script stopped with an error
	StatusMerged   = "merged"   // written by Merge
	// StatusInterrupted: a signal or a time limit stopped the script; the
	// completed runs are kept and running the script again resumes it.
	StatusInterrupted = "interrupted"
)

// Pending is the status of a run that is planned but not completed.
const Pending = "pending"

// Manifest describes a run directory (manifest.json).
type Manifest struct {
	Format     string     `json:"format"`
	Fedlab     string     `json:"fedlab_version"`
	Go         string     `json:"go_version"`
	Script     Script     `json:"script"`
	Shard      *Shard     `json:"shard,omitempty"`
	MergedFrom []string   `json:"merged_from,omitempty"`
	Status     string     `json:"status"`
	Error      string     `json:"error,omitempty"`
	Started    time.Time  `json:"started"`
	Finished   *time.Time `json:"finished,omitempty"`
	// CPUSeconds is the user + system CPU time the fedlab process used
	// from the session's start to its end (every run of the session and
	// the script's own work; of the last session if the directory was
	// resumed); absent where the system does not report it.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	// Float32Kernels is the class of the float32 kernels (gemm32.Class)
	// the last session computed with, "fma" or e.g. "go-amd64", whose
	// records differ in the last bits; absent if the session computed no
	// float32 product. A merged directory records its shards' classes,
	// joined by "+" if they differ.
	Float32Kernels string `json:"float32_kernels,omitempty"`
	// Invocation is how the last session was started (absent in
	// directories written before fedlab recorded it).
	Invocation *Invocation `json:"invocation,omitempty"`
	// Calls are the calls of the last session's invocation.
	Calls []Call `json:"calls"`
	// Earlier are the other invocations (other --set values, another
	// version or another script) whose runs the directory keeps beside
	// the last one's, oldest first (see Invocations).
	Earlier []*EarlierInvocation `json:"earlier_invocations,omitempty"`
	// Runs are the entries of every stored run, of the last invocation's
	// calls and of the earlier invocations' calls.
	Runs map[string]*Entry `json:"runs"`
	// Optima are the size and SHA-256 of each stored optimum
	// (optima/NAME), by file name, verified before one is used.
	Optima map[string]*FileSum `json:"optima,omitempty"`
	// Checkpoints are the checkpoints of unfinished runs
	// (checkpoints/KEY.ROUNDS.ckpt), by run key, verified before a run
	// resumes, and the final states of completed runs that a longer run
	// continues (a halving rung's, see keepRungStates).
	Checkpoints map[string]*CheckpointSum `json:"checkpoints,omitempty"`
	// Claims are the verdicts of the script's claims (see SetClaims).
	Claims *Claims `json:"claims,omitempty"`

	notice string // what Merge tells the user (see MergeNotice)
}

// FileSum is what a manifest records of a file it lists: its size in
// bytes and its SHA-256 (hex).
type FileSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Script identifies the script that produced a directory.
type Script struct {
	// Path is the script's absolute path (relative to where the session
	// started in directories written by older fedlab versions).
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Invocation records how a session was started: with the script's copy
// (ScriptCopyFile) and the build (Manifest.Fedlab, Manifest.Go), what is
// needed to see and redo exactly what ran.
type Invocation struct {
	CommandLine []string          `json:"command_line"`          // the arguments, from the program name on
	Program     string            `json:"program,omitempty"`     // the program as invoked (os.Args[0]), e.g. "./myfedlab"
	WorkDir     string            `json:"work_dir"`              // the working directory, where relative paths typed resolve
	Set         map[string]string `json:"set,omitempty"`         // the script arguments (--set) as typed
	ScriptCopy  string            `json:"script_copy,omitempty"` // the script's copy in the directory (ScriptCopyFile), if kept
}

// Call is one fedlab.run, fedlab.compare or fedlab.sweep call of the
// script, as the manifest records it: the call's fields (function, name,
// where, select, rung) followed by its runs.
type Call struct {
	experiment.Call
	Runs []CallRun `json:"runs"`
}

// rungColumn is the rung of each call as records.csv shows it (see
// runfile.WriteRecords).
func rungColumn(calls []Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Rung.String()
	}
	return out
}

// CallRun is one run of a call, in the call's order.
type CallRun struct {
	Key    string            `json:"key"`
	Label  string            `json:"label"`
	Seed   uint64            `json:"seed"`
	Config experiment.Config `json:"config,omitempty"`
}

// Entry describes one run (by key): what determines it and how it ended.
type Entry struct {
	experiment.Identity
	Status     string `json:"status"` // done, diverged, failed or pending
	DivergedAt int    `json:"diverged_at,omitempty"`
	// Unmoved is core.Result.Unmoved: the round at which the model was
	// still its initial value, bit for bit (core.UnmovedNote); absent
	// when it moved.
	Unmoved  int        `json:"unmoved_at,omitempty"`
	Error    string     `json:"error,omitempty"`
	Started  *time.Time `json:"started,omitempty"`
	Finished *time.Time `json:"finished,omitempty"`
	Elapsed  float64    `json:"elapsed_seconds,omitempty"`
	// Cohort is the number of runs executed in lockstep with this one
	// (itself included), whose time Elapsed is a share of; absent for a
	// run executed alone.
	Cohort int    `json:"cohort,omitempty"`
	Result string `json:"result,omitempty"` // path of the result file, relative to the directory
	// ResultSHA256 is the SHA-256 (hex) of the result file, verified by
	// every command that reads it (absent in directories written before
	// fedlab recorded it: then the file's own checksums are verified).
	ResultSHA256 string `json:"result_sha256,omitempty"`
	// ResultSize is the result file's size in bytes, where reading it
	// stops (absent in directories written before fedlab recorded it:
	// then at most MaxUnrecorded bytes are read).
	ResultSize int64  `json:"result_size,omitempty"`
	Model      string `json:"model,omitempty"` // path of the model file, relative to the directory
}

// resultSum is what the entry records of its result file (zero for nil).
func (e *Entry) resultSum() FileSum {
	if e == nil {
		return FileSum{}
	}
	return FileSum{Size: e.ResultSize, SHA256: e.ResultSHA256}
}

// ReadManifest reads dir's manifest; ok is false if there is none.
func ReadManifest(dir string) (m *Manifest, ok bool, err error) {
	b, err := ReadFile(dir, ManifestFile, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	m = &Manifest{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, false, fmt.Errorf("%s: %s (was the file edited? fedlab writes it whole)", filepath.Join(dir, ManifestFile), jsonProblem(err))
	}
	if m.Format != manifestFormat {
		return nil, false, fmt.Errorf("%s: unknown format %q (this fedlab writes %q)", filepath.Join(dir, ManifestFile), m.Format, manifestFormat)
	}
	if m.Runs == nil {
		m.Runs = map[string]*Entry{}
	}
	if err := m.checkNames(); err != nil {
		return nil, false, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return m, true, nil
}

// checkNames refuses a manifest whose run keys or optimum names are not
// plain file names (ValidName): they become file names in the directory
// (results/KEY.json, models/KEY.txt, optima/NAME), and a key such as
// "../../x" would lead out of it. A negative recorded size is refused too.
func (m *Manifest) checkNames() error {
	for key, e := range m.Runs {
		if err := ValidName(key); err != nil {
			return fmt.Errorf("run key %s (was the file edited? fedlab writes hexadecimal run keys)", err)
		}
		if e != nil && e.ResultSize < 0 {
			return fmt.Errorf("run %s: result_size %d is negative (was the file edited? fedlab writes it whole)", key, e.ResultSize)
		}
	}
	for i, c := range m.Calls {
		for _, r := range c.Runs {
			if err := ValidName(r.Key); err != nil {
				return fmt.Errorf("call %d: run key %s (was the file edited? fedlab writes hexadecimal run keys)", i+1, err)
			}
		}
	}
	for i, e := range m.Earlier {
		if e == nil {
			return fmt.Errorf("earlier invocation %d is null (was the file edited? fedlab writes it whole)", i+1)
		}
		for _, c := range e.Calls {
			for _, r := range c.Runs {
				if err := ValidName(r.Key); err != nil {
					return fmt.Errorf("earlier invocation %d: run key %s (was the file edited? fedlab writes hexadecimal run keys)", i+1, err)
				}
			}
		}
	}
	for name, sum := range m.Optima {
		if err := ValidName(name); err != nil {
			return fmt.Errorf("optimum name %s (was the file edited? fedlab names them by hexadecimal keys)", err)
		}
		if sum == nil || sum.Size <= 0 {
			return fmt.Errorf("optimum %s: no size recorded (was the file edited? fedlab writes it whole)", escape.Quote(name, 40))
		}
	}
	for key, c := range m.Checkpoints {
		if err := ValidName(key); err != nil {
			return fmt.Errorf("checkpoint of run key %s (was the file edited? fedlab writes hexadecimal run keys)", err)
		}
		if c == nil || c.Size <= 0 {
			return fmt.Errorf("checkpoint of run %s: no size recorded (was the file edited? fedlab writes it whole)", escape.Quote(key, 40))
		}
	}
	return nil
}

// write stores the manifest in dir, atomically.
func (m *Manifest) write(dir string) error {
	if gemm32.Used() && m.Status != StatusMerged { // a merge records its shards' classes
		m.Float32Kernels = gemm32.Class()
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, ManifestFile), append(b, '\n'))
}

// writeFile stores the manifest and result files, atomically (a variable:
// the full-disk tests make it fail as a full disk does).
var writeFile = atomicfile.WriteBytes

// newManifest starts the manifest of a session.
func newManifest(script Script, status string) *Manifest {
	return &Manifest{Format: manifestFormat, Fedlab: Version(), Go: goVersion(), Script: script, Status: status,
		Started: time.Now().UTC().Truncate(time.Millisecond), Runs: map[string]*Entry{}}
}

// jsonProblem describes a decoding error of a fedlab JSON file by the
// field and value at fault, not by Go's struct names: "runs.…rounds:
// 1e300 is not a whole number in range".
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		want := te.Type.String()
		switch te.Type.Kind() {
		case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint64:
			want = "a whole number in range"
		case reflect.Float64:
			want = "a number"
		case reflect.String:
			want = "a string"
		}
		var path []string
		for _, part := range strings.Split(te.Field, ".") {
			if part != "" && !unicode.IsUpper([]rune(part)[0]) { // Go's embedded struct names are not in the file
				path = append(path, part)
			}
		}
		return fmt.Sprintf("field %q at byte %d: %s is not %s", strings.Join(path, "."), te.Offset, te.Value, want)
	case errors.As(err, &se):
		return fmt.Sprintf("not valid JSON at byte %d: %v", se.Offset, se)
	}
	return err.Error()
}
