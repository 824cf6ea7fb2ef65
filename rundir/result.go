package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/rundir/runfile"
)

// resultFormat identifies the format of result files.
const resultFormat = "fedlab-result/1"

// resultFile is the content of results/KEY.json.
type resultFile struct {
	Format     string      `json:"format"`
	Key        string      `json:"key"`
	Status     core.Status `json:"status"`
	DivergedAt int         `json:"diverged_at,omitempty"`
	Unmoved    int         `json:"unmoved_at,omitempty"` // core.Result.Unmoved
	Error      string      `json:"error,omitempty"`
	Metrics    []string    `json:"metrics"`
	Records    []record    `json:"records"`
	Model      string      `json:"model,omitempty"`
	// ModelSHA256 and RecordsSHA256 are checksums of the model file and
	// of the records (as encoded here), verified when the run is reused.
	ModelSHA256   string    `json:"model_sha256,omitempty"`
	ModelSize     int64     `json:"model_size,omitempty"` // bytes; absent in files written before fedlab recorded it
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
	sum               FileSum // size and SHA-256 of its result file (zero in memory only)
	model             FileSum // size and SHA-256 of its model file, as its result file records them
}

// resultPath and modelPath are the files of the run with the given key,
// relative to the directory, slash-separated (as OpenFile takes them and
// result files record them).
func resultPath(key string) string { return ResultsDir + "/" + key + ".json" }
func modelPath(key string) string  { return ModelsDir + "/" + key + ".txt" }

// save writes the run's model (if it has one), then its result file, and
// returns the result file's size and SHA-256, which the manifest records.
func save(dir string, run experiment.Run, st stored) (FileSum, error) {
	res := run.Result
	f := resultFile{Format: resultFormat, Key: run.Key, Status: res.Status, DivergedAt: res.DivergedAt, Unmoved: res.Unmoved,
		Error: res.Err, Metrics: res.Metrics, Records: make([]record, len(res.Records)),
		Started: st.started, Finished: st.finished, Elapsed: res.Elapsed.Seconds(), Cohort: res.Cohort}
	for i, r := range res.Records {
		f.Records[i] = record{Round: r.Round, Up: r.Up, Down: r.Down, CommRounds: r.CommRounds, Samples: r.Samples, Values: r.Values}
	}
	if res.Model != nil {
		f.Model = modelPath(run.Key)
		if err := runfile.SaveModel(filepath.Join(dir, filepath.FromSlash(f.Model)), run); err != nil {
			return FileSum{}, err
		}
		m, err := OpenFile(dir, f.Model, 0)
		if err != nil {
			return FileSum{}, err
		}
		defer m.Close()
		if f.ModelSHA256, err = readerSHA256(m); err != nil {
			return FileSum{}, err
		}
		f.ModelSize = m.Size()
	}
	var err error
	if f.RecordsSHA256, err = recordsSHA256(f.Records); err != nil {
		return FileSum{}, err
	}
	b, err := json.Marshal(f)
	if err != nil {
		return FileSum{}, err
	}
	b = append(b, '\n')
	return sumOf(b), writeFile(filepath.Join(dir, filepath.FromSlash(resultPath(run.Key))), b)
}

// sumOf is the size and SHA-256 of b.
func sumOf(b []byte) FileSum {
	sum := sha256.Sum256(b)
	return FileSum{Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
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
// empty, is the SHA-256 the manifest recorded for the file, checked too,
// and want.Size, if not 0, its size (reading stops there). The files are
// read with OpenFile: a link, a named pipe or an oversized file is a
// problem named, not read.
func load(dir, key string, want FileSum) (st stored, problem string, err error) {
	b, err := ReadFile(dir, resultPath(key), want.Size)
	var refused *RefusedError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return stored{}, resultMissing, nil
	case errors.As(err, &refused) && refused.Path == filepath.Join(dir, filepath.FromSlash(resultPath(key))):
		return stored{}, refused.Why, nil
	case err != nil: // results/ itself is refused, or cannot be read
		return stored{}, "", err
	}
	sum := sumOf(b)
	if want.SHA256 != "" && sum.SHA256 != want.SHA256 {
		return stored{}, fmt.Sprintf("altered: its SHA-256 is %.12s…, the manifest recorded %.12s…", sum.SHA256, want.SHA256), nil
	}
	var f resultFile
	switch err := json.Unmarshal(b, &f); {
	case err != nil:
		return stored{}, "not a result file (" + err.Error() + ")", nil
	case f.Format != resultFormat:
		return stored{}, fmt.Sprintf("unknown format %q (want %q)", f.Format, resultFormat), nil
	case f.Key != key:
		return stored{}, fmt.Sprintf("holds the result of run %s", escape.Quote(f.Key, 40)), nil
	case f.ModelSize < 0:
		return stored{}, fmt.Sprintf("records a negative model size (%d)", f.ModelSize), nil
	case f.Model != "" && f.Model != modelPath(key):
		return stored{}, fmt.Sprintf("names its model file %s, where fedlab keeps it as %s", escape.Quote(f.Model, 80), modelPath(key)), nil
	}
	if f.RecordsSHA256 != "" {
		if s, err := recordsSHA256(f.Records); err != nil || s != f.RecordsSHA256 {
			return stored{}, "altered: its records do not match their checksum", nil
		}
	}
	var model []float64
	if f.Model != "" {
		if model, problem = readModel(dir, f); problem != "" {
			return stored{}, problem, nil
		}
	}
	res := &core.Result{Metrics: f.Metrics, Status: f.Status, DivergedAt: f.DivergedAt, Unmoved: f.Unmoved,
		Err: f.Error, Elapsed: time.Duration(f.Elapsed * float64(time.Second)), Cohort: f.Cohort, Records: make([]core.Record, len(f.Records))}
	for i, r := range f.Records {
		res.Records[i] = core.Record{Round: r.Round, Up: r.Up, Down: r.Down, CommRounds: r.CommRounds, Samples: r.Samples, Values: r.Values}
	}
	res.Model = model
	return stored{res: res, started: f.Started, finished: f.Finished, sum: sum,
		model: FileSum{Size: f.ModelSize, SHA256: f.ModelSHA256}}, "", nil
}

// readModel reads the model file of the result file f (its name checked
// by load), verified against the size and SHA-256 f records; problem says
// what is wrong with it.
func readModel(dir string, f resultFile) (w []float64, problem string) {
	m, err := OpenFile(dir, f.Model, f.ModelSize)
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		return nil, fmt.Sprintf("its model file %s", refused.Error())
	case err != nil:
		return nil, fmt.Sprintf("its model file %s is missing or unreadable (%v)", f.Model, err)
	}
	defer m.Close()
	if f.ModelSHA256 != "" {
		if s, err := readerSHA256(m); err != nil || s != f.ModelSHA256 {
			return nil, fmt.Sprintf("its model file %s is altered", f.Model)
		}
		if err := m.Rewind(); err != nil {
			return nil, fmt.Sprintf("its model file %s does not read (%v)", f.Model, err)
		}
	}
	if w, err = runfile.ParseModel(m, filepath.Join(dir, filepath.FromSlash(f.Model))); err != nil {
		return nil, fmt.Sprintf("its model file %s does not read (%v)", f.Model, err)
	}
	return w, ""
}

// readerSHA256 is the hex SHA-256 of what r reads.
func readerSHA256(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
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
