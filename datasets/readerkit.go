package datasets

import (
	"io/fs"
	"math"
	"os"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/registry"
)

// This file is what a benchmark format kept in a package of its own
// (datasets/parquetdata, so that only the binaries that read Parquet link
// the Parquet library) shares with the formats of this package: the
// partition keys and the table a split is read into (Samples, federated
// by FederateSamples), the checks of the data files, the reading limits,
// and the forms of text in messages. Each is the same code the formats
// here use, so every format says the same things the same way.

// DefaultBenchSplit returns the benchmark formats' partition defaults
// (partition = "iid", alpha = 0.5, dominant = 0.8, shards_per_client = 2,
// seed = 1).
func DefaultBenchSplit() BenchSplit { return defaultBenchSplit }

// Samples are the samples of one split, read from a file set: Y holds a
// label a row; Pix holds len(Y)×Features pixel bytes (read as b/255), or,
// when Pix is nil, X holds len(Y)×Features values.
type Samples struct {
	Name     string // the file or directory, for messages
	Features int
	Pix      []byte
	X, Y     []float64
	Writer   []int              // each row's index into Writers; nil when the data name no writers
	Writers  []string           // the writers in order of first appearance
	Where    func(i int) string // the place of row i in the files ("train.parquet row 3")
}

// pooled is s as the formats of this package hold a split (sharing its
// arrays).
func (s *Samples) pooled() *pooled {
	return &pooled{name: s.Name, n: len(s.Y), features: s.Features, pix: s.Pix, x: s.X, y: s.Y,
		client: s.Writer, ids: s.Writers, where: s.Where}
}

// KeepLabels keeps the rows whose label is listed in labels, relabelled by
// their place in the list, as the labels key of leaf does; training says
// whether s is the training split (where each listed label must keep a
// row). An empty list keeps every row.
func (s *Samples) KeepLabels(labels []float64, training bool) error {
	p := s.pooled()
	if err := p.keepLabels(labels, training); err != nil {
		return err
	}
	s.Pix, s.X, s.Y, s.Writer, s.Where = p.pix, p.x, p.y, p.client, p.where
	return nil
}

// NoteDroppedWriters tells c's notices which writers of s the labels
// filter (KeepLabels) left without a sample; reader names the dataset.
func (s *Samples) NoteDroppedWriters(c registry.BuildContext, reader string, labels []float64) {
	s.pooled().noteDroppedWriters(c, reader, labels)
}

// FederateSamples partitions the training split train (and deals out the
// test split, nil for none) with the keys split, as every benchmark format
// does: name names the dataset, classes its classes (0: regression), and
// hint tells how to name the writers when the data name none and
// partition = "natural".
func FederateSamples(name string, train, test *Samples, split BenchSplit, classes int, hint string) (*core.Federated, error) {
	var t *pooled
	if test != nil {
		t = test.pooled()
	}
	return federate(name, train.pooled(), t, split, classes, benchStreams, hint)
}

// DeclareSamples declares the memory of a benchmark format's training and
// test splits (a path "" is skipped) from their files' heads: rows reads
// a split's rows and width (false: its files cannot be read, and loading
// then says why); pixels says whether the samples are images read into
// bytes (the encoded bytes read too) or values.
func DeclareSamples(paths [2]string, pixels bool, rows func(path string) (n int64, width int, ok bool)) (uint64, string) {
	return declareSplits(paths, [2]string{"training rows", "test rows"}, func(_ int, path string) (splitMemory, bool) {
		n, width, ok := rows(path)
		if !ok {
			return splitMemory{}, false
		}
		r := int(min(n, math.MaxInt32))
		m := splitMemory{n: n, width: width, bytes: sampleBytes(r, width, 0)}
		if pixels {
			m.bytes = pixelBytes(r, width, budget.Product(r, width))
		}
		return m, true
	})
}

// CheckLabelList refuses a labels list that is not a set of class labels
// or that does not match classes.
func CheckLabelList(labels []float64, classes int) error { return checkLabelList(labels, classes) }

// OpenData opens a data file for reading, refusing what is not a regular
// file (a directory, a FIFO, a device) and naming, for a missing path, its
// first missing component and the nearest name that exists.
func OpenData(path string) (*os.File, error) { return openData(path) }

// StatData is os.Stat naming, for a missing path, its first missing
// component and the nearest name that exists.
func StatData(path string) (fs.FileInfo, error) { return statData(path) }

// Limits are what stops a reader: the memory ceiling and the build's
// context (see readLimits).
type Limits struct{ l readLimits }

// LimitsOf returns the limits of a build: its memory ceiling and its
// context.
func LimitsOf(c registry.BuildContext) Limits { return Limits{limitsOf(c)} }

// DefaultLimits are the limits of a reader called outside a build: the
// default ceiling of the process's own limits, no context.
func DefaultLimits() Limits { return Limits{defaultLimits()} }

// ReadCheckEvery is how many bytes a reader reads between two checks of
// the memory in use (CheckCeiling).
const ReadCheckEvery = readCheckEvery

// Stopped returns the cause of the end of the build's context, if it has
// ended.
func (l Limits) Stopped() error { return l.l.stopped() }

// CheckCeiling returns the cause of the end of the build's context, or a
// *CeilingError when the memory in use passes the ceiling after read bytes.
func (l Limits) CheckCeiling(read int64) error { return checkCeiling(read, l.l) }

// CheckGrowth returns a *CeilingError when allocating extra bytes more
// would take the memory in use past the ceiling (read bytes into the
// reading), or the cause of the end of the build's context.
func (l Limits) CheckGrowth(read int64, extra uint64) error { return checkGrowth(read, extra, l.l) }

// Quote is text read from a file as a message shows it: quoted as ASCII
// and cut (escape.Quote), as every reader quotes its input.
func Quote(s string) string { return escape.Quote(s, maxEcho) }

// LibMessage is a file-format library's error (or panic value) as message
// text: cut at 240 bytes and quoted when it holds control characters or
// invalid UTF-8.
func LibMessage(v any) string { return libError(v) }
