package datasets

// The line-by-line svmlight parser of commit 02aee54, before parallel
// chunks: the oracle of TestParallelSVMLightIsSerial and
// FuzzParallelSVMLight.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/fedlab/fedlab/core"
)

// readSVMLightSerial is ReadSVMLight as it was, line by line.
func readSVMLightSerial(r io.Reader, name string, features int, zeroBased bool) (*Table, error) {
	if features < 0 || features > core.MaxFeatures {
		return nil, fmt.Errorf("%s: features = %d outside 0..%d", name, features, core.MaxFeatures)
	}
	br := bufio.NewReaderSize(boundedLines(r, readerLimits), 1<<16)
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
		tok, rest := nextFieldSerial(rest)
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
		tok, rest = nextFieldSerial(rest)
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
			tok, rest = nextFieldSerial(rest)
		}
		prev := int64(-1)
		for ; tok != ""; tok, rest = nextFieldSerial(rest) {
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

// nextFieldSerial is nextField as it was.
func nextFieldSerial(s string) (field, rest string) {
	s = strings.TrimLeft(s, " \t\r\n\v\f")
	i := strings.IndexAny(s, " \t\r\n\v\f")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}
