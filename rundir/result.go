package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/report"
)

// resultFormat identifies the format of result files.
const resultFormat = "fedlab-result/1"

// resultFile is the content of results/KEY.json.
type resultFile struct {
	Format     string      `json:"format"`
	Key        string      `json:"key"`
	Status     core.Status `json:"status"`
	DivergedAt int         `json:"diverged_at,omitempty"`
	Error      string      `json:"error,omitempty"`
	Metrics    []string    `json:"metrics"`
	Records    []record    `json:"records"`
	Model      string      `json:"model,omitempty"`
	// ModelSHA256 and RecordsSHA256 are checksums of the model file and
	// of the records (as encoded here), verified when the run is reused.
	ModelSHA256   string    `json:"model_sha256,omitempty"`
	RecordsSHA256 string    `json:"records_sha256,omitempty"`
	Started       time.Time `json:"started"`
	Finished      time.Time `json:"finished"`
	Elapsed       float64   `json:"elapsed_seconds"`
	Cohort        int       `json:"cohort,omitempty"` // core.Result.Cohort
}

// record is one core.Record.
type record struct {
	Round      int    `json:"round"`
	Up         int64  `json:"comm_up"`
	Down       int64  `json:"comm_down"`
	CommRounds int    `json:"comm_rounds"`
	Samples    int64  `json:"samples"`
	Values     floats `json:"values"`
}

// floats encodes NaN and ±Inf as the strings "NaN", "+Inf", "-Inf", which
// plain JSON numbers cannot hold; finite values round-trip exactly.
type floats []float64

// MarshalJSON writes the values as numbers, non-finite ones as strings.
func (f floats) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, v := range f {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = strconv.AppendQuote(b, strconv.FormatFloat(v, 'g', -1, 64))
			continue
		}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *floats) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(floats, len(raw))
	for i, r := range raw {
		s := string(r)
		if len(s) > 0 && s[0] == '"' {
			if err := json.Unmarshal(r, &s); err != nil {
				return err
			}
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("value %d: %w", i+1, err)
		}
		out[i] = v
	}
	*f = out
	return nil
}

// stored is a completed run as kept in a directory (or in memory).
type stored struct {
	res               *core.Result
	started, finished time.Time
	sum               string // hex SHA-256 of its result file ("" in memory only)
}

// resultPath and modelPath are the files of the run with the given key,
// relative to the directory.
func resultPath(key string) string { return filepath.Join(ResultsDir, key+".json") }
func modelPath(key string) string  { return filepath.Join(ModelsDir, key+".txt") }

// save writes the run's model (if it has one), then its result file, and
// returns the result file's SHA-256 (hex), which the manifest records.
func save(dir string, run experiment.Run, st stored) (string, error) {
	res := run.Result
	f := resultFile{Format: resultFormat, Key: run.Key, Status: res.Status, DivergedAt: res.DivergedAt, Error: res.Err,
		Metrics: res.Metrics, Records: make([]record, len(res.Records)),
		Started: st.started, Finished: st.finished, Elapsed: res.Elapsed.Seconds(), Cohort: res.Cohort}
	for i, r := range res.Records {
		f.Records[i] = record{Round: r.Round, Up: r.Up, Down: r.Down, CommRounds: r.CommRounds, Samples: r.Samples, Values: r.Values}
	}
	if res.Model != nil {
		f.Model = modelPath(run.Key)
		if err := report.SaveModel(filepath.Join(dir, f.Model), run); err != nil {
			return "", err
		}
		sum, err := fileSHA256(filepath.Join(dir, f.Model))
		if err != nil {
			return "", err
		}
		f.ModelSHA256 = sum
	}
	var err error
	if f.RecordsSHA256, err = recordsSHA256(f.Records); err != nil {
		return "", err
	}
	b, err := json.Marshal(f)
	if err != nil {
		return "", err
	}
	b = append(b, '\n')
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), writeFile(filepath.Join(dir, resultPath(run.Key)), b)
}

// Problems load reports with a result file.
const (
	resultMissing = "missing"
)

// load reads the run with the given key. problem is "" when the directory
// holds a usable result for it, resultMissing when it has no result file,
// and otherwise says what is wrong with the file: it does not decode as
// the result of this key, or its records or model file do not match the
// checksums written with them (damaged by something other than fedlab,
// whose writes are atomic), or the model file is missing. want, if not
// empty, is the SHA-256 the manifest recorded for the file, checked too.
func load(dir, key, want string) (st stored, problem string, err error) {
	b, err := os.ReadFile(filepath.Join(dir, resultPath(key)))
	if os.IsNotExist(err) {
		return stored{}, resultMissing, nil
	}
	if err != nil {
		return stored{}, "", err
	}
	raw := sha256.Sum256(b)
	sum := hex.EncodeToString(raw[:])
	if want != "" && sum != want {
		return stored{}, fmt.Sprintf("altered: its SHA-256 is %.12s…, the manifest recorded %.12s…", sum, want), nil
	}
	var f resultFile
	switch err := json.Unmarshal(b, &f); {
	case err != nil:
		return stored{}, "not a result file (" + err.Error() + ")", nil
	case f.Format != resultFormat:
		return stored{}, fmt.Sprintf("unknown format %q (want %q)", f.Format, resultFormat), nil
	case f.Key != key:
		return stored{}, fmt.Sprintf("holds the result of run %q", f.Key), nil
	}
	if f.RecordsSHA256 != "" {
		if s, err := recordsSHA256(f.Records); err != nil || s != f.RecordsSHA256 {
			return stored{}, "altered: its records do not match their checksum", nil
		}
	}
	if f.ModelSHA256 != "" {
		if s, err := fileSHA256(filepath.Join(dir, f.Model)); err != nil || s != f.ModelSHA256 {
			return stored{}, fmt.Sprintf("its model file %s is missing or altered", f.Model), nil
		}
	}
	res := &core.Result{Metrics: f.Metrics, Status: f.Status, DivergedAt: f.DivergedAt, Err: f.Error,
		Elapsed: time.Duration(f.Elapsed * float64(time.Second)), Cohort: f.Cohort, Records: make([]core.Record, len(f.Records))}
	for i, r := range f.Records {
		res.Records[i] = core.Record{Round: r.Round, Up: r.Up, Down: r.Down, CommRounds: r.CommRounds, Samples: r.Samples, Values: r.Values}
	}
	if f.Model != "" {
		if res.Model, err = report.ReadModel(filepath.Join(dir, f.Model)); err != nil {
			return stored{}, fmt.Sprintf("its model file %s does not read (%v)", f.Model, err), nil
		}
	}
	return stored{res: res, started: f.Started, finished: f.Finished, sum: sum}, "", nil
}

// fileSHA256 is the hex SHA-256 of a file's content.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// recordsSHA256 is the hex SHA-256 of the records' JSON encoding (which
// is exact, so a read-back file gives the same checksum).
func recordsSHA256(records []record) (string, error) {
	b, err := json.Marshal(records)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
