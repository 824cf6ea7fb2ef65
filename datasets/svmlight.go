package datasets

import (
	"errors"
	"fmt"
	"github.com/klauspost/compress/zstd"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/registry"
)

// Storage formats of the svmlight loader's format parameter.
const (
	FormatSparse = "sparse"
	FormatDense  = "dense"
)

// maxDenseFloats bounds the size of a dense copy of a file (2 GiB of floats);
// beyond it the loader asks for sparse storage instead of allocating.
const maxDenseFloats = 1 << 28

// SVMLightParams are the svmlight loader's parameters.
type SVMLightParams struct {
	Path      string `param:"path,required,path" doc:"svmlight/libsvm file \x60label [qid:N] idx:val ...\x60 per line; .gz, .bz2, .xz and .zst files are decompressed while reading"`
	Features  int    `param:"features" min:"0" max:"1073741824" doc:"number of features; 0 = infer from the largest index"`
	ZeroBased bool   `param:"zero_based" doc:"feature indices start at 0 instead of 1"`
	Format    string `param:"format" choices:"sparse|dense" doc:"storage: sparse (compressed rows, memory O(nonzeros); O(nnz) gradients) or dense (needed by mlp and quadratic)"`
	scaling
	loaderParams
}

func init() {
	registry.DefineWith(registry.Dataset, "svmlight",
		"svmlight/libsvm text file (optionally compressed), stored sparse or dense; qid:N gives the client, else the samples are partitioned",
		SVMLightParams{Format: FormatSparse, scaling: scaling{Scaling: ScaleNone}, loaderParams: defaultLoaderParams},
		func(c registry.BuildContext, p SVMLightParams) (*core.Federated, error) {
			t, err := loadSVMLight(p.Path, p.Features, p.ZeroBased, limitsOf(c))
			if err != nil {
				return nil, err
			}
			if p.Format == FormatDense {
				if err := t.densify(); err != nil {
					return nil, err
				}
			}
			f, err := t.Federate(p.options())
			if err != nil {
				return nil, err
			}
			if err := Scale(f, p.Scaling); err != nil {
				return nil, fmt.Errorf("%s: %w", t.Name, err)
			}
			return f, nil
		})
}

// densify stores the table's data densely, refusing sizes beyond maxDenseFloats.
func (t *Table) densify() error {
	if n := float64(t.Data.N) * float64(t.Data.Features); n > maxDenseFloats {
		return fmt.Errorf("%s: dense storage of %d samples × %d features needs %.1f GiB; use format = %q",
			t.Name, t.Data.N, t.Data.Features, n*8/(1<<30), FormatSparse)
	}
	t.Data = t.Data.ToDense()
	return nil
}

// LoadSVMLight reads an svmlight/libsvm file, decompressing it on the fly
// (see Decompress), into sparse storage (see ReadSVMLight).
func LoadSVMLight(path string, features int, zeroBased bool) (*Table, error) {
	return loadSVMLight(path, features, zeroBased, defaultLimits())
}

// loadSVMLight is LoadSVMLight stopping at the limits b (ceiling, context).
func loadSVMLight(path string, features int, zeroBased bool, b readLimits) (*Table, error) {
	fh, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r, err := Decompress(fh, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readSVMLight(r, path, features, zeroBased, textChunk, b)
}

// ReadSVMLight parses svmlight/libsvm text into compressed sparse rows,
// streaming (no dense intermediate, memory O(samples + nonzeros)): one
// sample per line, `label [qid:N] idx:val idx:val ...`, indices strictly
// increasing and 1-based (or 0-based if zeroBased). A qid token right after
// the label names the sample's client; either every sample has one or none
// does. Text after '#' and blank lines are ignored; multi-label lines
// (`1,3 idx:val ...`) are refused. features = 0 infers the count from the
// largest index; indices beyond core.MaxFeatures are refused. Errors name the
// file and line, e.g. `data.svm:17: bad feature "3:abc": ...`, including read
// errors of a damaged compressed file; the error is the one of the first bad
// line. The text is parsed in chunks of whole lines on every core (see
// readChunks) and joined in order: the values and the errors are those of
// parsing it line by line.
func ReadSVMLight(r io.Reader, name string, features int, zeroBased bool) (*Table, error) {
	return readSVMLight(r, name, features, zeroBased, textChunk, defaultLimits())
}

// readSVMLight is ReadSVMLight with chunks of about size bytes, stopping
// at the limits b (ceiling, context).
func readSVMLight(r io.Reader, name string, features int, zeroBased bool, size int, b readLimits) (*Table, error) {
	if features < 0 || features > core.MaxFeatures {
		return nil, fmt.Errorf("%s: features = %d outside 0..%d", name, features, core.MaxFeatures)
	}
	p := svmParser{name: name, features: features, zeroBased: zeroBased, base: 1, limit: core.MaxFeatures}
	if zeroBased {
		p.base = 0
	}
	if features > 0 {
		p.limit = features
	}
	j := svmJoin{name: name, t: &Table{Name: name}, sp: &core.CSR{Ptr: []int{0}}, clientOf: map[string]int{}, maxIdx: -1}
	err := readChunks(splitter{r: boundedLines(r, b), size: size, first: 1, cut: lineEnd}, func(c chunk) any {
		part := &svmPart{}
		p.parse(c, part)
		return part
	}, func(c chunk, v any) error { return j.add(v.(*svmPart)) })
	if err != nil {
		var ce *CeilingError
		var re *readError
		switch {
		case !errors.As(err, &re):
			return nil, err
		case errors.As(err, &ce), b.stopped() != nil: // the ceiling or the script stopped the read, not the file
			return nil, fmt.Errorf("%s:%d: %w", name, re.line, re.err)
		case errors.Is(err, zstd.ErrWindowSizeExceeded):
			return nil, fmt.Errorf("%s:%d: reading: the zstd file needs a larger window than the decoder allows (%d MiB): recompress it without --long or with --long=27 or less: %w",
				name, re.line, zstdMaxWindow>>20, re.err)
		default:
			return nil, fmt.Errorf("%s:%d: reading: %w (is the file truncated or damaged?)", name, re.line, re.err)
		}
	}
	if len(j.labels) == 0 {
		return nil, fmt.Errorf("%s: no samples", name)
	}
	if features == 0 {
		features = j.maxIdx + 1
		if features == 0 {
			return nil, fmt.Errorf("%s: no features in any sample (set features to use a bias-only model)", name)
		}
	}
	j.sp.Ind, j.sp.Val = slices.Concat(j.ind...), slices.Concat(j.val...)
	j.t.Data = &core.Data{Sparse: j.sp, Y: j.labels, N: len(j.labels), Features: features}
	return j.t, nil
}

// svmParser parses the lines of a chunk of svmlight text.
type svmParser struct {
	name        string
	features    int
	zeroBased   bool
	base, limit int
}

// svmPart is a parsed chunk: its samples in compressed rows (row ends
// relative to the chunk), labels, line numbers and qids (or none), the
// largest index, and the chunk's first bad line, if any.
type svmPart struct {
	ind    []int32
	val    []float64
	ends   []int
	labels []float64
	lines  []int
	qids   []string // each sample's qid text; nil when the chunk's lines have none
	hasQid []bool
	maxIdx int
	// err is the first bad line's error. If the line was bad after its
	// qid token was read (errQid: whether it had one, errTok: the token),
	// the join checks that line's qid against the file's first, as a
	// line-by-line parse does before reading on.
	err     error
	errLine int
	errQid  int // 0: bad before the qid token; 1: after, with a qid; -1: after, without
	errTok  string
}

// parse parses chunk c into part, stopping at the first bad line.
func (p *svmParser) parse(c chunk, part *svmPart) {
	part.maxIdx = -1
	// The text is read in place, not copied (a chunk's bytes are never
	// written once the splitter has cut them; what outlives the parse —
	// qids — is cloned by the join): 162 MB of copying on the file.
	text := unsafe.String(unsafe.SliceData(c.text), len(c.text))
	line := c.first
	for len(text) > 0 {
		var l string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i+1], text[i+1:]
		} else {
			l, text = text, ""
		}
		if err := p.line(l, line, part); err != nil {
			part.err, part.errLine = err, line
			return
		}
		line++
	}
}

// line parses one line (with its line break) into part.
func (p *svmParser) line(text string, line int, part *svmPart) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", p.name, line, fmt.Sprintf(format, echoed(a)...))
	}
	if i := strings.IndexByte(strings.TrimRight(text, "\r\n"), '\r'); i >= 0 {
		return fmt.Errorf("%s:%d: the line holds a carriage return at byte %d: CR-only line endings (old Mac)? convert them to LF, e.g. tr '\\r' '\\n' < IN > OUT", p.name, line, i+1)
	}
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	rest := text
	tok, rest := nextField(rest)
	if tok == "" {
		return nil
	}
	if strings.Contains(tok, ",") {
		return bad("multi-label line (labels %q): fedlab reads one label per sample", tok)
	}
	if strings.Contains(tok, ":") {
		return bad("missing label: the line starts with feature %q", tok)
	}
	label, perr := parseDecimal(tok)
	if perr != nil || math.IsNaN(label) || math.IsInf(label, 0) {
		return bad("bad label %q: %s", tok, numError(perr))
	}
	tok, rest = nextField(rest)
	hasQid, qtok := strings.HasPrefix(tok, "qid:"), tok
	after := func(err error) error {
		part.errQid, part.errTok = -1, qtok
		if hasQid {
			part.errQid = 1
		}
		return err
	}
	q := ""
	if hasQid {
		q = strings.TrimPrefix(tok, "qid:")
		if _, qerr := strconv.ParseInt(q, 10, 64); qerr != nil {
			return after(bad("bad qid %q: %s", tok, numError(qerr)))
		}
		tok, rest = nextField(rest)
	}
	prev := int64(-1)
	for ; tok != ""; tok, rest = nextField(rest) {
		is, vs, ok := strings.Cut(tok, ":")
		if !ok {
			return after(bad("bad feature %q: want index:value", tok))
		}
		idx, ierr := parseIndex(is)
		if ierr != nil {
			return after(bad("bad feature %q: index: %s", tok, numError(ierr)))
		}
		if idx < int64(p.base) {
			return after(bad("bad feature %q: index below %d (zero_based = %v)", tok, p.base, p.zeroBased))
		}
		j := idx - int64(p.base)
		if j <= prev {
			return after(bad("bad feature %q: index not greater than the previous %d", tok, prev+int64(p.base)))
		}
		prev = j
		if j >= int64(p.limit) {
			if p.features > 0 {
				return after(bad("bad feature %q: index beyond features = %d", tok, p.features))
			}
			return after(bad("bad feature %q: index beyond fedlab's limit of %d features", tok, core.MaxFeatures))
		}
		v, verr := parseDecimal(vs)
		if verr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return after(bad("bad feature %q: value: %s", tok, numError(verr)))
		}
		if v == 0 {
			continue // an explicit zero is not stored
		}
		part.ind = append(part.ind, int32(j))
		part.val = append(part.val, v)
		part.maxIdx = max(part.maxIdx, int(j))
	}
	part.ends = append(part.ends, len(part.ind))
	part.labels = append(part.labels, label)
	part.lines = append(part.lines, line)
	part.qids = append(part.qids, q)
	part.hasQid = append(part.hasQid, hasQid)
	return nil
}

// svmJoin appends parsed chunks in order, checking that every sample has
// a qid or none does and numbering the clients in order of first
// appearance.
type svmJoin struct {
	name     string
	t        *Table
	sp       *core.CSR
	labels   []float64
	clientOf map[string]int
	qidLine  int // first line with (qid > 0) or without (qid < 0) a qid
	maxIdx   int
	// the parts' nonzeros, concatenated once at the end (appending them
	// to one growing array copied them about twice: a third of the
	// parse's CPU on the file)
	ind [][]int32
	val [][]float64
	nnz int
}

// qid checks a line's qid (or its absence) against the file's first line,
// and returns the error of a line-by-line parse.
func (j *svmJoin) qid(line int, has bool, tok string) error {
	switch {
	case j.qidLine == 0 && has:
		j.qidLine = line
	case j.qidLine == 0:
		j.qidLine = -line
	case j.qidLine > 0 && !has:
		return fmt.Errorf("%s:%d: no qid, but line %d has one (give every sample a qid or none)", j.name, line, j.qidLine)
	case j.qidLine < 0 && has:
		return fmt.Errorf("%s:%d: qid %s, but line %d has none (give every sample a qid or none)", j.name, line, escape.Quote(tok, maxEcho), -j.qidLine)
	}
	return nil
}

// add appends part, or returns the error of its first bad line.
func (j *svmJoin) add(part *svmPart) error {
	base := j.nnz
	for r, line := range part.lines {
		if err := j.qid(line, part.hasQid[r], "qid:"+part.qids[r]); err != nil {
			return err
		}
		if part.hasQid[r] {
			q := part.qids[r]
			c, ok := j.clientOf[q]
			if !ok {
				q = strings.Clone(q)
				c = len(j.t.ClientIDs)
				j.clientOf[q] = c
				j.t.ClientIDs = append(j.t.ClientIDs, q)
			}
			j.t.Client = append(j.t.Client, c)
		}
	}
	j.ind, j.val = append(j.ind, part.ind), append(j.val, part.val)
	j.nnz += len(part.ind)
	for _, e := range part.ends {
		j.sp.Ptr = append(j.sp.Ptr, base+e)
	}
	j.labels = append(j.labels, part.labels...)
	j.t.Lines = append(j.t.Lines, part.lines...)
	j.maxIdx = max(j.maxIdx, part.maxIdx)
	if part.err != nil {
		if part.errQid != 0 {
			if err := j.qid(part.errLine, part.errQid > 0, part.errTok); err != nil {
				return err
			}
		}
		return part.err
	}
	return nil
}

// nextField splits off the first field of s separated by ASCII white space
// (space, \t, \r, \n, \v, \f).
func nextField(s string) (field, rest string) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isSpace(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}

// parseIndex is strconv.ParseInt(s, 10, 64), with a fast path for the
// common case of up to 18 plain digits (which cannot overflow).
func parseIndex(s string) (int64, error) {
	if len(s) == 0 || len(s) > 18 {
		return strconv.ParseInt(s, 10, 64)
	}
	v := int64(0)
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return strconv.ParseInt(s, 10, 64)
		}
		v = v*10 + int64(d)
	}
	return v, nil
}

// isSpace reports whether b is ASCII white space.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '\v' || b == '\f'
}

// numError describes a number parse failure briefly ("invalid syntax",
// "value out of range"), or a non-finite value when err is nil.
func numError(err error) string {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err.Error()
	}
	if err != nil {
		return err.Error()
	}
	return "not finite"
}
