// Command femnistgen writes a synthetic data set of FEMNIST's size and
// shape — by default 805,263 grey 28×28 images of 62 classes by 3,550
// writers — in the formats researchers get FEMNIST in: LEAF's JSON
// (train/ and test/ directories of files of about 100 writers, pixels as
// the values k/255 that LEAF writes, in Python's spelling) and Flower
// Datasets' Parquet (an image column of PNG bytes in Hugging Face's
// {bytes, path} struct, writer_id, character). It exists to measure
// fedlab's readers and training at FEMNIST's scale (docs/performance.md);
// the images are random strokes, not handwriting.
//
//	go run ./internal/femnistgen -out /tmp/femnist -format leaf,parquet
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// side is the images' side in pixels.
const side = 28

// writersPerFile is the writers of a LEAF file (LEAF's all_data_N.json
// files hold about 100 each).
const writersPerFile = 100

func main() {
	out := flag.String("out", "", "directory to write (created)")
	formats := flag.String("format", "leaf", "comma-separated: leaf, parquet")
	images := flag.Int("images", 805263, "images in all")
	writers := flag.Int("writers", 3550, "writers")
	test := flag.Float64("test", 0.1, "fraction of each writer's images in the test split (LEAF) or flagged so (Parquet: one file)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" || *writers < 1 || *images < *writers {
		fmt.Fprintln(os.Stderr, "femnistgen: give -out, and at least one image per writer")
		os.Exit(2)
	}
	set := newSet(*images, *writers, *seed)
	for _, f := range strings.Split(*formats, ",") {
		var err error
		switch f {
		case "leaf":
			err = set.writeLEAF(filepath.Join(*out, "leaf"), *test)
		case "parquet":
			err = set.writeParquet(filepath.Join(*out, "parquet"))
		default:
			err = fmt.Errorf("unknown format %q (leaf, parquet)", f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "femnistgen:", err)
			os.Exit(1)
		}
	}
}

// set is the data set: each writer's image count; images are drawn from
// (seed, writer, index), so every format holds the same images.
type set struct {
	counts []int
	seed   uint64
}

// newSet deals images over writers, each between half and 1.5 times the
// mean.
func newSet(images, writers int, seed uint64) *set {
	rng := rand.New(rand.NewPCG(seed, 0))
	w := make([]float64, writers)
	sum := 0.0
	for i := range w {
		w[i] = 0.5 + rng.Float64()
		sum += w[i]
	}
	s := &set{counts: make([]int, writers), seed: seed}
	left := images
	for i := range w {
		s.counts[i] = max(1, int(float64(images)*w[i]/sum))
		left -= s.counts[i]
	}
	for i := 0; left != 0; i = (i + 1) % writers {
		if left > 0 {
			s.counts[i]++
			left--
		} else if s.counts[i] > 1 {
			s.counts[i]--
			left++
		}
	}
	return s
}

// image draws writer w's image k: three strokes, pixels darker (smaller)
// near them, the background 255, and its class 0..61.
func (s *set) image(w, k int, pix []byte) int {
	rng := rand.New(rand.NewPCG(s.seed, uint64(w)<<32|uint64(k)))
	var seg [3][4]float64
	for i := range seg {
		for j := range seg[i] {
			seg[i][j] = 4 + 20*rng.Float64()
		}
	}
	for y := range side {
		for x := range side {
			d := math.Inf(1)
			for _, g := range seg {
				d = math.Min(d, distance(float64(x), float64(y), g))
			}
			pix[y*side+x] = byte(math.Round(255 * math.Min(1, d/2.5)))
		}
	}
	return rng.IntN(62)
}

// distance is the distance of (x, y) from the segment g.
func distance(x, y float64, g [4]float64) float64 {
	dx, dy := g[2]-g[0], g[3]-g[1]
	t := math.Max(0, math.Min(1, ((x-g[0])*dx+(y-g[1])*dy)/(dx*dx+dy*dy)))
	return math.Hypot(x-g[0]-t*dx, y-g[1]-t*dy)
}

// writerID is writer w's name, as FEMNIST's.
func writerID(w int) string { return fmt.Sprintf("f%04d_%02d", w, w%100) }

// appendPixel appends byte b's value b/255 as Python's json writes it.
func appendPixel(dst []byte, b byte) []byte {
	switch b {
	case 0:
		return append(dst, "0.0"...)
	case 255:
		return append(dst, "1.0"...)
	}
	return strconv.AppendFloat(dst, float64(b)/255, 'g', -1, 64)
}

// writeLEAF writes dir/train and dir/test, a file per writersPerFile
// writers, the last ceil(test × n) images of each writer in test.
func (s *set) writeLEAF(dir string, test float64) error {
	for _, split := range []string{"train", "test"} {
		if err := os.MkdirAll(filepath.Join(dir, split), 0o755); err != nil {
			return err
		}
	}
	files := (len(s.counts) + writersPerFile - 1) / writersPerFile
	errs := make([]error, files)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for f := range files {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			lo, hi := f*writersPerFile, min((f+1)*writersPerFile, len(s.counts))
			for _, split := range []string{"train", "test"} {
				name := filepath.Join(dir, split, fmt.Sprintf("all_data_%d_niid_0_keep_0_%s_9.json", f, split))
				if err := s.leafFile(name, lo, hi, split == "test", test); err != nil {
					errs[f] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// testCount is the test images of a writer of n.
func testCount(n int, test float64) int { return int(math.Ceil(test * float64(n))) }

// leafFile writes writers lo..hi-1's train or test images as a LEAF file.
func (s *set) leafFile(name string, lo, hi int, isTest bool, test float64) error {
	fh, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(fh, 1<<20)
	span := func(wr int) (int, int) {
		t := testCount(s.counts[wr], test)
		if isTest {
			return s.counts[wr] - t, s.counts[wr]
		}
		return 0, s.counts[wr] - t
	}
	w.WriteString(`{"users": [`)
	for wr := lo; wr < hi; wr++ {
		if wr > lo {
			w.WriteString(", ")
		}
		w.WriteString(strconv.Quote(writerID(wr)))
	}
	w.WriteString(`], "num_samples": [`)
	for wr := lo; wr < hi; wr++ {
		if wr > lo {
			w.WriteString(", ")
		}
		a, b := span(wr)
		w.WriteString(strconv.Itoa(b - a))
	}
	w.WriteString(`], "user_data": {`)
	pix := make([]byte, side*side)
	var buf []byte
	for wr := lo; wr < hi; wr++ {
		if wr > lo {
			w.WriteString(", ")
		}
		a, b := span(wr)
		w.WriteString(strconv.Quote(writerID(wr)) + `: {"x": [`)
		var labels []byte
		for k := a; k < b; k++ {
			c := s.image(wr, k, pix)
			buf = append(buf[:0], '[')
			for j, p := range pix {
				if j > 0 {
					buf = append(buf, ", "...)
				}
				buf = appendPixel(buf, p)
			}
			buf = append(buf, ']')
			if k > a {
				w.WriteString(", ")
				labels = append(labels, ", "...)
			}
			w.Write(buf)
			labels = strconv.AppendInt(labels, int64(c), 10)
		}
		w.WriteString(`], "y": [`)
		w.Write(labels)
		w.WriteString("]}")
	}
	w.WriteString("}}")
	if err := w.Flush(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// onePool keeps one goroutine's PNG encoder buffer (its zlib writer)
// from image to image.
type onePool struct{ b *png.EncoderBuffer }

// Get returns the kept buffer (nil at first: the encoder makes one).
func (p *onePool) Get() *png.EncoderBuffer { return p.b }

// Put keeps b for the next image.
func (p *onePool) Put(b *png.EncoderBuffer) { p.b = b }

// parquetRow is a row of Flower Datasets' flwrlabs/femnist.
type parquetRow struct {
	Image     parquetImage `parquet:"image"`
	WriterID  string       `parquet:"writer_id"`
	Character int64        `parquet:"character"`
}

// parquetImage is Hugging Face's image struct.
type parquetImage struct {
	Bytes []byte `parquet:"bytes"`
	Path  string `parquet:"path"`
}

// writeParquet writes every image to dir/train.parquet, writers in order,
// in row groups of writersPerFile writers.
func (s *set) writeParquet(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fh, err := os.Create(filepath.Join(dir, "train.parquet"))
	if err != nil {
		return err
	}
	pw := parquet.NewGenericWriter[parquetRow](fh)
	for lo := 0; lo < len(s.counts); lo += writersPerFile {
		hi := min(lo+writersPerFile, len(s.counts))
		var rows []parquetRow
		var mu sync.Mutex
		var wg sync.WaitGroup
		groups := make([][]parquetRow, hi-lo)
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for wr := lo; wr < hi; wr++ {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				img := image.NewGray(image.Rect(0, 0, side, side))
				enc := png.Encoder{BufferPool: &onePool{}} // png.Encode made a new zlib writer per image
				var g []parquetRow
				for k := range s.counts[wr] {
					c := s.image(wr, k, img.Pix)
					var b bytes.Buffer
					if err := enc.Encode(&b, img); err != nil {
						panic(err) // a bytes.Buffer does not fail
					}
					g = append(g, parquetRow{parquetImage{b.Bytes(), fmt.Sprintf("%d.png", k)}, writerID(wr), int64(c)})
				}
				mu.Lock()
				groups[wr-lo] = g
				mu.Unlock()
			})
		}
		wg.Wait()
		for _, g := range groups {
			rows = append(rows, g...)
		}
		if _, err := pw.Write(rows); err != nil {
			return err
		}
		if err := pw.Flush(); err != nil {
			return err
		}
	}
	if err := pw.Close(); err != nil {
		return err
	}
	return fh.Close()
}
