//go:build unix

package datasets

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/internal/cputime"
)

// svmlightShapeText generates rows of nnz features with indices spread up to maxIndex,
// 6-digit values, labels 0–4, and (if qid) a qid: token per 100 rows.
func svmlightShapeText(rows, nnz int, qid bool, maxIndex int) []byte {
	rng := rand.New(rand.NewPCG(7, 1))
	var b bytes.Buffer
	for r := range rows {
		fmt.Fprintf(&b, "%d", rng.IntN(5))
		if qid {
			fmt.Fprintf(&b, " qid:%d", r/100+1)
		}
		j := 0
		step := maxIndex / nnz
		for range nnz {
			j += 1 + rng.IntN(2*step-1)
			if j > maxIndex {
				break
			}
			fmt.Fprintf(&b, " %d:%.6f", j, rng.Float64()*2-1)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkSVMLightShapes parses 20,000 rows of 30 nonzeros in four
// shapes (a qid: token per row or not, indices up to 2²⁰ or 2¹⁰) and
// reports MB and CPU nanoseconds per nonzero per CPU-second, to find what
// a learning-to-rank file's qid and wide indices cost.
func BenchmarkSVMLightShapes(b *testing.B) {
	for _, s := range []struct {
		name     string
		qid      bool
		maxIndex int
	}{{"qid-wide", true, 1 << 20}, {"noqid-wide", false, 1 << 20}, {"qid-narrow", true, 1 << 10}, {"noqid-narrow", false, 1 << 10}} {
		b.Run(s.name, func(b *testing.B) {
			text := svmlightShapeText(20000, 30, s.qid, s.maxIndex)
			nz := bytes.Count(text, []byte(":"))
			if s.qid {
				nz -= 20000
			}
			if _, err := ReadSVMLight(bytes.NewReader(text), "x.svm", 1<<20, false); err != nil { // warm-up
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			c0 := cputime.Now()
			for b.Loop() {
				if _, err := ReadSVMLight(bytes.NewReader(text), "x.svm", 1<<20, false); err != nil {
					b.Fatal(err)
				}
			}
			cpu := (cputime.Now() - c0).Seconds()
			b.ReportMetric(float64(len(text))*float64(b.N)/cpu/1e6, "MB/cpu-s")
			b.ReportMetric(cpu/float64(b.N)/float64(nz)*1e9, "cpu-ns/nonzero")
			b.ReportMetric(float64(len(text))/20000, "bytes/row")
		})
	}
}
