package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/klauspost/compress/zstd"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/core"
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

// svmlightParams are the svmlight loader's parameters.
type svmlightParams struct {
	Path      string `param:"path,required" doc:"svmlight/libsvm file \x60label [qid:N] idx:val ...\x60 per line; .gz, .bz2, .xz and .zst files are decompressed while reading"`
	Features  int    `param:"features" min:"0" max:"1073741824" doc:"number of features; 0 = infer from the largest index"`
	ZeroBased bool   `param:"zero_based" doc:"feature indices start at 0 instead of 1"`
	Format    string `param:"format" choices:"sparse|dense" doc:"storage: sparse (compressed rows, memory O(nonzeros); O(nnz) gradients) or dense (needed by mlp and quadratic)"`
	scaling
	loaderParams
}

func init() {
	registry.Define(registry.Dataset, "svmlight",
		"svmlight/libsvm text file (optionally compressed), stored sparse or dense; qid:N gives the client, else the samples are partitioned",
		svmlightParams{Format: FormatSparse, scaling: scaling{Scaling: ScaleNone}, loaderParams: defaultLoaderParams},
		func(p svmlightParams) (*core.Federated, error) {
			t, err := LoadSVMLight(p.Path, p.Features, p.ZeroBased)
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
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r, err := Decompress(fh, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return ReadSVMLight(r, path, features, zeroBased)
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
// errors of a damaged compressed file.
func ReadSVMLight(r io.Reader, name string, features int, zeroBased bool) (*Table, error) {
	if features < 0 || features > core.MaxFeatures {
		return nil, fmt.Errorf("%s: features = %d outside 0..%d", name, features, core.MaxFeatures)
	}
	br := bufio.NewReaderSize(boundedLines(r), 1<<16)
	t := &Table{Name: name}
	var (
		sp       = &core.CSR{Ptr: []int{0}}
		labels   []float64
		clientOf = map[string]int{}
		qidLine  int // first line with (qid > 0) or without (qid < 0) a qid
		maxIdx   = -1
		base     = 1
		limit    = core.MaxFeatures
	)
	if zeroBased {
		base = 0
	}
	if features > 0 {
		limit = features
	}
	for line := 1; ; line++ {
		text, err := br.ReadString('\n')
		var ce *CeilingError
		switch {
		case errors.As(err, &ce):
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		case errors.Is(err, zstd.ErrWindowSizeExceeded):
			return nil, fmt.Errorf("%s:%d: reading: the zstd file needs a larger window than the decoder allows (%d MiB): recompress it without --long or with --long=27 or less: %w",
				name, line, zstdMaxWindow>>20, err)
		case err != nil && !errors.Is(err, io.EOF):
			return nil, fmt.Errorf("%s:%d: reading: %w (is the file truncated or damaged?)", name, line, err)
		}
		if i := strings.IndexByte(strings.TrimRight(text, "\r\n"), '\r'); i >= 0 {
			return nil, fmt.Errorf("%s:%d: the line holds a carriage return at byte %d: CR-only line endings (old Mac)? convert them to LF, e.g. tr '\\r' '\\n' < IN > OUT", name, line, i+1)
		}
		if text == "" && err != nil {
			break
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, echoed(a)...))
		}
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		rest := text
		tok, rest := nextField(rest)
		if tok == "" {
			continue
		}
		if strings.Contains(tok, ",") {
			return nil, bad("multi-label line (labels %q): fedlab reads one label per sample", tok)
		}
		if strings.Contains(tok, ":") {
			return nil, bad("missing label: the line starts with feature %q", tok)
		}
		label, perr := parseDecimal(tok)
		if perr != nil || math.IsNaN(label) || math.IsInf(label, 0) {
			return nil, bad("bad label %q: %s", tok, numError(perr))
		}
		tok, rest = nextField(rest)
		hasQid := strings.HasPrefix(tok, "qid:")
		switch {
		case qidLine == 0 && hasQid:
			qidLine = line
		case qidLine == 0:
			qidLine = -line
		case qidLine > 0 && !hasQid:
			return nil, bad("no qid, but line %d has one (give every sample a qid or none)", qidLine)
		case qidLine < 0 && hasQid:
			return nil, bad("qid %q, but line %d has none (give every sample a qid or none)", tok, -qidLine)
		}
		if hasQid {
			q := strings.TrimPrefix(tok, "qid:")
			if _, qerr := strconv.ParseInt(q, 10, 64); qerr != nil {
				return nil, bad("bad qid %q: %s", tok, numError(qerr))
			}
			c, ok := clientOf[q]
			if !ok {
				c = len(t.ClientIDs)
				clientOf[q] = c
				t.ClientIDs = append(t.ClientIDs, strings.Clone(q))
			}
			t.Client = append(t.Client, c)
			tok, rest = nextField(rest)
		}
		prev := int64(-1)
		for ; tok != ""; tok, rest = nextField(rest) {
			is, vs, ok := strings.Cut(tok, ":")
			if !ok {
				return nil, bad("bad feature %q: want index:value", tok)
			}
			idx, ierr := strconv.ParseInt(is, 10, 64)
			if ierr != nil {
				return nil, bad("bad feature %q: index: %s", tok, numError(ierr))
			}
			if idx < int64(base) {
				return nil, bad("bad feature %q: index below %d (zero_based = %v)", tok, base, zeroBased)
			}
			j := idx - int64(base)
			if j <= prev {
				return nil, bad("bad feature %q: index not greater than the previous %d", tok, prev+int64(base))
			}
			prev = j
			if j >= int64(limit) {
				if features > 0 {
					return nil, bad("bad feature %q: index beyond features = %d", tok, features)
				}
				return nil, bad("bad feature %q: index beyond fedlab's limit of %d features", tok, core.MaxFeatures)
			}
			v, verr := parseDecimal(vs)
			if verr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, bad("bad feature %q: value: %s", tok, numError(verr))
			}
			if v == 0 {
				continue // an explicit zero is not stored
			}
			sp.Ind = append(sp.Ind, int32(j))
			sp.Val = append(sp.Val, v)
			maxIdx = max(maxIdx, int(j))
		}
		sp.Ptr = append(sp.Ptr, len(sp.Ind))
		labels = append(labels, label)
		t.Lines = append(t.Lines, line)
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("%s: no samples", name)
	}
	if features == 0 {
		features = maxIdx + 1
		if features == 0 {
			return nil, fmt.Errorf("%s: no features in any sample (set features to use a bias-only model)", name)
		}
	}
	t.Data = &core.Data{Sparse: sp, Y: labels, N: len(labels), Features: features}
	return t, nil
}

// nextField splits off the first whitespace-separated field of s.
func nextField(s string) (field, rest string) {
	s = strings.TrimLeft(s, " \t\r\n\v\f")
	i := strings.IndexAny(s, " \t\r\n\v\f")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
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
