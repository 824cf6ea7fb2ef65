package datasets

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestIsDecimalIsTheGrammar: the byte scan accepts exactly the strings of
// the grammar's regular expression, over every string of up to 4 bytes of
// an alphabet of the grammar's bytes and a few others, and random longer
// ones.
func TestIsDecimalIsTheGrammar(t *testing.T) {
	grammar := regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	alphabet := "07+-.eEx_ "
	check := func(s string) {
		if got, want := isDecimal(s), grammar.MatchString(s); got != want {
			t.Fatalf("isDecimal(%q) = %v, the grammar says %v", s, got, want)
		}
	}
	var all func(prefix string, n int)
	all = func(prefix string, n int) {
		check(prefix)
		if n == 0 {
			return
		}
		for i := range len(alphabet) {
			all(prefix+alphabet[i:i+1], n-1)
		}
	}
	all("", 4)
	rng := rand.New(rand.NewPCG(1, 1))
	for range 200000 {
		b := make([]byte, 5+rng.IntN(10))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(string(b))
	}
}

// TestExactDecimalIsParseFloat: exactDecimal reads a string, or leaves
// it to the full parse, and what it reads is strconv.ParseFloat's value
// bit for bit: random numbers of up to 22 digits with fractions,
// exponents, signs and leading zeros, the edges of its exact range (2⁵³,
// 10^±22, 19 digits) and strings of the grammar's bytes (10⁶ random
// numbers, 10⁵ under -short).
func TestExactDecimalIsParseFloat(t *testing.T) {
	check := func(s string) bool {
		v, ok := exactDecimal(s)
		if !ok {
			return false
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || !isDecimal(s) || math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("exactDecimal(%q) = %v (%x), ParseFloat %v (%x, %v), isDecimal %v", s, v, math.Float64bits(v), want, math.Float64bits(want), err, isDecimal(s))
		}
		return true
	}
	for _, s := range []string{"0", "-0", "+0.000", "-0.0e5", "9007199254740992", "9007199254740993", "9007199254740992e22",
		"1e22", "1e23", "1e-22", "1e-23", "4.9e-324", "1234567890123456789", "12345678901234567890", "0.1", "-3.5e-7",
		".5", "5.", "1e", "e1", "1.2.3", "+-1", "0x10", "1_0", "inf", "NaN", "00000000000000000001", "1e0000000000000000001"} {
		check(s)
	}
	rng := rand.New(rand.NewPCG(7, 1))
	read, numbers := 0, 1000000
	if testing.Short() {
		numbers = 100000
	}
	for range numbers {
		var b strings.Builder
		b.WriteString([]string{"", "-", "+"}[rng.IntN(3)])
		n := rng.IntN(23)
		for range rng.IntN(3) {
			b.WriteByte('0')
		}
		for range n {
			if rng.IntN(8) == 0 && !strings.Contains(b.String(), ".") {
				b.WriteByte('.')
			}
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "%c%d", "eE"[rng.IntN(2)], rng.IntN(60)-30)
		}
		if check(b.String()) {
			read++
		}
	}
	if read < numbers/2 {
		t.Fatalf("exactDecimal read %d of %d random numbers: the test should exercise it", read, numbers)
	}
	alphabet := "019+-.eE"
	for range 200000 {
		b := make([]byte, 1+rng.IntN(8))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(string(b))
	}
}

// svmlightFuzz writes random svmlight text: mostly valid lines (labels,
// qids, increasing features, explicit zeros, comments, blank lines, CRLF
// endings, long lines), and with probability bad per line one of the
// mistakes the parser names (a bad label, value, index or qid, a line
// without the qid the others have, a CR inside a line, ...).
func svmlightFuzz(rng *rand.Rand, lines int, bad float64, qids bool) string {
	var b strings.Builder
	for range lines {
		if rng.Float64() < 0.05 {
			b.WriteString([]string{"\n", "# comment\n", "   \n", "\r\n"}[rng.IntN(4)])
			continue
		}
		mistake := -1
		if rng.Float64() < bad {
			mistake = rng.IntN(14)
		}
		label := []string{"1", "-1", "0", "+1", "2.5", "3e2"}[rng.IntN(6)]
		switch mistake {
		case 0:
			label = "abc"
		case 1:
			label = "1,2"
		case 2:
			label = "3:1"
		case 3:
			label = "nan"
		}
		b.WriteString(label)
		hasQid := qids
		if mistake == 4 {
			hasQid = !hasQid
		}
		if hasQid {
			q := strconv.Itoa(rng.IntN(5))
			if mistake == 5 {
				q = "x" + q
			}
			b.WriteString(" qid:" + q)
		}
		j := 0
		for k := range rng.IntN(12) {
			j += 1 + rng.IntN(30)
			idx := strconv.Itoa(j)
			switch {
			case mistake == 6 && k == 1:
				idx = "0"
			case mistake == 7 && k == 2:
				idx = strconv.Itoa(j - 1)
			case mistake == 8 && k == 0:
				idx = strconv.Itoa(1 << 31)
			}
			val := strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64)
			switch {
			case rng.IntN(10) == 0:
				val = "0"
			case mistake == 9 && k == 1:
				val = "1e"
			case mistake == 10 && k == 0:
				val = "inf"
			}
			if mistake == 11 && k == 1 {
				b.WriteString(" " + idx + val)
				continue
			}
			b.WriteString(" " + idx + ":" + val)
		}
		if mistake == 12 {
			b.WriteString(" a\rb")
		}
		if mistake == 13 || (mistake == 4 && rng.IntN(2) == 0) { // (with 4: two mistakes, the qid's first)
			b.WriteString(" 99999:1")
		}
		if rng.IntN(8) == 0 {
			b.WriteString(" # note")
		}
		if rng.IntN(6) == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	s := b.String()
	if rng.IntN(3) == 0 { // no line break at the end
		s = strings.TrimRight(s, "\n")
	}
	return s
}

// failingReader returns its text, then err.
type failingReader struct {
	text string
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.text == "" {
		return 0, f.err
	}
	n := copy(p, f.text)
	f.text = f.text[n:]
	return n, nil
}

// sameTable fails unless a and b are the same samples, lines and clients
// bit for bit, or both errors are the same message.
func sameTable(t *testing.T, what string, a *Table, aerr error, b *Table, berr error) {
	t.Helper()
	if aerr != nil || berr != nil {
		if aerr == nil || berr == nil || aerr.Error() != berr.Error() {
			t.Fatalf("%s: error %v, serial %v", what, aerr, berr)
		}
		return
	}
	bits := func(v []float64) []uint64 {
		out := make([]uint64, len(v))
		for i, x := range v {
			out[i] = math.Float64bits(x)
		}
		return out
	}
	da, db := a.Data, b.Data
	same := da.N == db.N && da.Features == db.Features && slices.Equal(bits(da.Y), bits(db.Y)) && slices.Equal(bits(da.X), bits(db.X)) &&
		slices.Equal(a.Lines, b.Lines) && slices.Equal(a.ClientIDs, b.ClientIDs) && slices.Equal(a.Client, b.Client) && a.Name == b.Name &&
		(da.Sparse == nil) == (db.Sparse == nil)
	if same && da.Sparse != nil {
		same = slices.Equal(da.Sparse.Ptr, db.Sparse.Ptr) && slices.Equal(da.Sparse.Ind, db.Sparse.Ind) && slices.Equal(bits(da.Sparse.Val), bits(db.Sparse.Val))
	}
	if !same {
		t.Fatalf("%s: tables differ:\n%+v\n%+v", what, a, b)
	}
}

// readerLimits are the exported readers' limits (defaultLimits), read once
// per test binary: the parallel-versus-serial tests read thousands of
// texts, and defaultLimits reads /proc/meminfo and the cgroup files.
var readerLimits = defaultLimits()

// TestParallelSVMLightIsSerial: the chunked parallel parser gives what the
// line-by-line parser gives, value for value, or the same error (the one
// of the first bad line, with its number), on generated files of valid
// and bad lines, with and without qids, split into chunks of 1 byte to
// 4 KiB (lines longer than a chunk included), and when the reader fails
// part way (a damaged compressed file): 3000 files, 300 under -short.
func TestParallelSVMLightIsSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	errs, trials := 0, 3000
	if testing.Short() {
		trials = 300
	}
	for trial := range trials {
		bad := []float64{0, 0.002, 0.02, 0.3}[trial%4]
		text := svmlightFuzz(rng, 1+rng.IntN(300), bad, rng.IntN(2) == 0)
		size := 1 + rng.IntN(4096)
		features := []int{0, 0, 200}[rng.IntN(3)]
		zero := rng.IntN(4) == 0
		what := fmt.Sprintf("trial %d (chunk %d, features %d, zero_based %v)", trial, size, features, zero)
		got, gerr := readSVMLight(strings.NewReader(text), "f.svm", features, zero, size, readerLimits)
		want, werr := readSVMLightSerial(strings.NewReader(text), "f.svm", features, zero)
		sameTable(t, what, got, gerr, want, werr)
		if werr != nil {
			errs++
		}
		cut := rng.IntN(len(text) + 1)
		boom := errors.New("unexpected EOF")
		got, gerr = readSVMLight(&failingReader{text[:cut], boom}, "f.svm", features, zero, size, readerLimits)
		want, werr = readSVMLightSerial(&failingReader{text[:cut], boom}, "f.svm", features, zero)
		sameTable(t, what+fmt.Sprintf(", failing after %d bytes", cut), got, gerr, want, werr)
	}
	if errs < trials/3 || errs > trials*5/6 {
		t.Fatalf("%d of %d files were bad: the generator does not cover both cases", errs, trials)
	}
}

// FuzzParallelSVMLight: on any text and chunk size, the parallel parser
// agrees with the line-by-line one.
func FuzzParallelSVMLight(f *testing.F) {
	f.Add("1 qid:3 1:0.5 4:2\n-1 qid:1 2:1 # x\n", uint16(7))
	f.Add("1 1:1\n2 3:1 2:1\n", uint16(3))
	f.Add("1 1:1\r\n0 qid:2 5:1\n\n", uint16(1))
	f.Fuzz(func(t *testing.T, text string, size uint16) {
		got, gerr := readSVMLight(strings.NewReader(text), "f.svm", 0, false, 1+int(size), readerLimits)
		want, werr := readSVMLightSerial(strings.NewReader(text), "f.svm", 0, false)
		sameTable(t, "fuzz", got, gerr, want, werr)
	})
}

// TestParseIndexIsParseInt: the fast path agrees with strconv.ParseInt,
// errors included, on digit strings of every length up to 20 and signed,
// spaced or lettered ones.
func TestParseIndexIsParseInt(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for range 100000 {
		b := make([]byte, rng.IntN(21))
		for i := range b {
			b[i] = "0123456789"[rng.IntN(10)]
		}
		if len(b) > 0 && rng.IntN(5) == 0 {
			b[rng.IntN(len(b))] = "+- x_9"[rng.IntN(6)]
		}
		s := string(b)
		got, gerr := parseIndex(s)
		want, werr := strconv.ParseInt(s, 10, 64)
		if got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("parseIndex(%q) = %d, %v; ParseInt: %d, %v", s, got, gerr, want, werr)
		}
	}
}

// csvFuzz writes random CSV text: a header (label, client and feature
// columns, in a random order, possibly after blank lines), then records
// of numbers, quoted fields (some spanning lines, with doubled quotes),
// spaces, CRLF endings and blank lines, and with probability bad per line
// one of the mistakes the parser names (a bad value, a wrong field count,
// a bare or stray quote).
func csvFuzz(rng *rand.Rand, lines int, bad float64) string {
	var b strings.Builder
	cols := []string{"label", "client", "x1", "x 2", "x3"}[:2+rng.IntN(4)]
	rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	if rng.IntN(5) == 0 {
		b.WriteString("\n")
	}
	for j, c := range cols {
		if j > 0 {
			b.WriteString(",")
		}
		if rng.IntN(4) == 0 {
			b.WriteString(`"` + c + `"`)
		} else {
			b.WriteString(c)
		}
	}
	b.WriteString("\n")
	for range lines {
		if rng.Float64() < 0.03 {
			b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
			continue
		}
		mistake := -1
		if rng.Float64() < bad {
			mistake = rng.IntN(6)
		}
		n := len(cols)
		if mistake == 0 {
			n += 1 - 2*rng.IntN(2)
		}
		for j := range n {
			if j > 0 {
				b.WriteString(",")
			}
			if rng.IntN(6) == 0 {
				b.WriteString(" ")
			}
			v := strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64)
			if j < len(cols) && cols[j] == "client" {
				v = []string{"a", "b", "c d", "7", "\"e\nf\"\"g\""}[rng.IntN(5)] // a quoted id over two lines, with a quote
			}
			switch {
			case mistake == 1 && j == 1:
				v = "1x"
			case mistake == 2 && j == 0:
				v = "nan"
			case mistake == 3 && j == 1:
				v = `4"2`
			case mistake == 4 && j == 0:
				v = `"3"x`
			case mistake == 5 && j == 0:
				v = `"unterminated`
			case rng.IntN(8) == 0 && v[0] != '"':
				v = `"` + v + `"`
			}
			b.WriteString(v)
		}
		b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
	}
	s := b.String()
	if rng.IntN(3) == 0 {
		s = strings.TrimRight(s, "\r\n")
	}
	return s
}

// TestParallelCSVIsSerial: the chunked parallel CSV parser gives what the
// record-by-record parser gives, value for value, or the same error (the
// one of the first bad record, with its line), on generated files with
// and without a client column, split into chunks of 1 byte to 4 KiB, and
// when the reader fails part way: 3000 files, 300 under -short.
func TestParallelCSVIsSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	errs, trials := 0, 3000
	if testing.Short() {
		trials = 300
	}
	for trial := range trials {
		bad := []float64{0, 0.002, 0.02, 0.3}[trial%4]
		text := csvFuzz(rng, rng.IntN(200), bad)
		size := 1 + rng.IntN(4096)
		client := []string{"", "client"}[rng.IntN(2)]
		what := fmt.Sprintf("trial %d (chunk %d, client %q)", trial, size, client)
		got, gerr := readCSV(strings.NewReader(text), "f.csv", "label", client, size, readerLimits)
		want, werr := readCSVSerial(strings.NewReader(text), "f.csv", "label", client)
		sameTable(t, what, got, gerr, want, werr)
		if werr != nil {
			errs++
		}
		cut := rng.IntN(len(text) + 1)
		boom := errors.New("unexpected EOF")
		got, gerr = readCSV(&failingReader{text[:cut], boom}, "f.csv", "label", client, size, readerLimits)
		want, werr = readCSVSerial(&failingReader{text[:cut], boom}, "f.csv", "label", client)
		sameTable(t, what+fmt.Sprintf(", failing after %d bytes", cut), got, gerr, want, werr)
	}
	if errs < trials/3 || errs > trials*5/6 {
		t.Fatalf("%d of %d files were bad: the generator does not cover both cases", errs, trials)
	}
}

// FuzzParallelCSV: on any text and chunk size, the parallel CSV parser
// agrees with the record-by-record one.
func FuzzParallelCSV(f *testing.F) {
	f.Add("label,x\n1,2\n0,\"3\"\n", uint16(5))
	f.Add("x,label,client\n1,2,a\n\"4\n\",1,b\n", uint16(2))
	f.Fuzz(func(t *testing.T, text string, size uint16) {
		got, gerr := readCSV(strings.NewReader(text), "f.csv", "label", "", 1+int(size), readerLimits)
		want, werr := readCSVSerial(strings.NewReader(text), "f.csv", "label", "")
		sameTable(t, "fuzz", got, gerr, want, werr)
	})
}
