package parquetdata

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/fedlab/fedlab/datasets"
)

// femnistShapedParquet writes rows of flwrlabs/femnist's shape: 28×28
// grey PNGs of strokes on white, writers of 100 images, row groups of 100
// writers (internal/femnistgen's layout at a smaller size).
func femnistShapedParquet(b *testing.B, writers int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "train.parquet")
	fh, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	img := image.NewGray(image.Rect(0, 0, 28, 28))
	pw := parquet.NewGenericWriter[femnistRow](fh)
	for lo := 0; lo < writers; lo += 100 {
		var rows []femnistRow
		for w := lo; w < min(lo+100, writers); w++ {
			for k := range 100 {
				for i := range img.Pix {
					img.Pix[i] = 255
				}
				for range 60 { // a stroke of dark pixels
					img.Pix[rng.IntN(len(img.Pix))] = uint8(rng.IntN(128))
				}
				var buf bytes.Buffer
				if err := png.Encode(&buf, img); err != nil {
					b.Fatal(err)
				}
				rows = append(rows, femnistRow{Image: hfImage{Bytes: buf.Bytes(), Path: fmt.Sprintf("%d.png", k)}, WriterID: fmt.Sprintf("f%04d", w), Character: int64(rng.IntN(62))})
			}
		}
		if _, err := pw.Write(rows); err != nil {
			b.Fatal(err)
		}
		if err := pw.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkParquetPageCheck compares the page-header check that runs
// before parquet-go reads a file (checkPages) with the whole read of the
// same FEMNIST-shaped file (30,000 images, 3 row groups): the check's
// share of a read.
func BenchmarkParquetPageCheck(b *testing.B) {
	path := femnistShapedParquet(b, 300)
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			fh, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			st, _ := fh.Stat()
			pf, err := openParquet(fh, st.Size())
			if err != nil {
				b.Fatal(err)
			}
			if err := checkPages(fh, pf, datasets.DefaultLimits()); err != nil {
				b.Fatal(err)
			}
			fh.Close()
		}
	})
	b.Run("read", func(b *testing.B) {
		p := parquetParams{Path: path, Image: "image", Label: "character", Client: "writer_id", Classes: 62}
		for b.Loop() {
			if _, err := p.readParquet(path, datasets.DefaultLimits()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
