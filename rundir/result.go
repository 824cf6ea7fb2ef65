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
	"github.com/fedlab/fedlab/internal/atomicfile"
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
}

// resultPath and modelPath are the files of the run with the given key,
// relative to the directory.
func resultPath(key string) string { return filepath.Join(ResultsDir, key+".json") }
func modelPath(key string) string  { return filepath.Join(ModelsDir, key+".txt") }

// save writes the run's model (if it has one), then its result file.
func save(dir string, run experiment.Run, st stored) error {
	res := run.Result
	f := resultFile{Format: resultFormat, Key: run.Key, Status: res.Status, DivergedAt: res.DivergedAt, Error: res.Err,
		Metrics: res.Metrics, Records: make([]record, len(res.Records)),
		Started: st.started, Finished: st.finished, Elapsed: res.Elapsed.Seconds()}
	for i, r := range res.Records {
		f.Records[i] = record{Round: r.Round, Up: r.Up, Down: r.Down, CommRounds: r.CommRounds, Samples: r.Samples, Values: r.Values}
	}
	if res.Model != nil {
		f.Model = modelPath(run.Key)
		if err := report.SaveModel(filepath.Join(dir, f.Model), run); err != nil {
			return err
		}
		sum, err := fileSHA256(filepath.Join(dir, f.Model))
		if err != nil {
			return err
		}
		f.ModelSHA256 = sum
	}
	var err error
	if f.RecordsSHA256, err = recordsSHA256(f.Records); err != nil {
		return err
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, resultPath(run.Key)), append(b, '\n'))
}

// load reads the run with the given key; ok is false if the directory has
// no usable result for it: no result file, one that does not decode as
// the result of this key, records or a model file whose checksum does not
// match (damaged by something other than fedlab, whose writes are
// atomic), or a model file missing. Such a run is run again.
func load(dir, key string) (st stored, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, resultPath(key)))
	if os.IsNotExist(err) {
		return stored{}, false, nil
	}
	if err != nil {
		return stored{}, false, err
	}
	var f resultFile
	if json.Unmarshal(b, &f) != nil || f.Format != resultFormat || f.Key != key {
		return stored{}, false, nil
	}
	if f.RecordsSHA256 != "" {
		if sum, err := recordsSHA256(f.Records); err != nil || sum != f.RecordsSHA256 {
			return stored{}, false, nil // records altered after fedlab wrote them
		}
	}
	if f.ModelSHA256 != "" {
		if sum, err := fileSHA256(filepath.Join(dir, f.Model)); err != nil || sum != f.ModelSHA256 {
			return stored{}, false, nil // model file altered or missing
		}
	}
	res := &core.Result{Metrics: f.Metrics, Status: f.Status, DivergedAt: f.DivergedAt, Err: f.Error,
		Elapsed: time.Duration(f.Elapsed * float64(time.Second)), Records: make([]core.Record, len(f.Records))}
	for i, r := range f.Records {
		res.Records[i] = core.Record{Round: r.Round, Up: r.Up, Down: r.Down, CommRounds: r.CommRounds, Samples: r.Samples, Values: r.Values}
	}
	if f.Model != "" {
		if res.Model, err = report.ReadModel(filepath.Join(dir, f.Model)); err != nil {
			return stored{}, false, nil
		}
	}
	return stored{res: res, started: f.Started, finished: f.Finished}, true, nil
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
