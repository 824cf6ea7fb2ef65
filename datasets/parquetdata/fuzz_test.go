package parquetdata

import (
	"bytes"
	"fmt"
	"image"
	pngpkg "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/fedlab/fedlab/datasets"
)

// writeFuzzFile writes b to a fresh file name in dir.
func writeFuzzFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// FuzzReadParquet: any bytes as a Parquet file give rows whose features
// match their count, or an error naming the file, never a panic.
func FuzzReadParquet(f *testing.F) {
	type row struct {
		Img   []byte `parquet:"img"`
		Who   string `parquet:"who"`
		Label int64  `parquet:"label"`
	}
	var png []byte
	{
		var b bytes.Buffer
		img := image.NewGray(image.Rect(0, 0, 2, 2))
		pngpkg.Encode(&b, img)
		png = b.Bytes()
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "seed.parquet")
	if err := parquet.WriteFile(path, []row{{png, "a", 0}, {png, "b", 1}, {[]byte("x"), "b", 1}}); err != nil {
		f.Fatal(err)
	}
	seed, _ := os.ReadFile(path)
	f.Add(seed)
	f.Add(seed[:len(seed)-9])
	f.Add(seed[len(seed)/2:])
	for i, bomb := range [][]byte{ // image bombs: headers declaring 60000×60000, 16-bit 30000×30000, 65535×65535
		pngDeclaring(f, image.NewGray(image.Rect(0, 0, 2, 2)), 60000, 60000),
		pngDeclaring(f, image.NewRGBA64(image.Rect(0, 0, 2, 2)), 30000, 30000),
		jpegDeclaring(f, 65535, 65535),
	} {
		path := filepath.Join(dir, fmt.Sprintf("bomb%d.parquet", i))
		if err := parquet.WriteFile(path, []row{{png, "a", 0}, {bomb, "b", 1}}); err != nil {
			f.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		f.Add(b)
		parquet.WriteFile(path, []row{{bomb, "a", 0}, {png, "b", 1}})
		b, _ = os.ReadFile(path)
		f.Add(b)
	}
	forgePageSize(f, path) // a page header declaring 2 GiB
	forged, _ := os.ReadFile(path)
	f.Add(forged)
	f.Fuzz(func(t *testing.T, b []byte) {
		path := writeFuzzFile(t, t.TempDir(), "f.parquet", b)
		p := parquetParams{Path: path, Image: "img", Label: "label", Classes: 2, BenchSplit: datasets.DefaultBenchSplit()}
		s, err := p.readParquet(path, datasets.DefaultLimits())
		cleanMessage(t, err)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(s.Pix) != len(s.Y)*s.Features {
			t.Fatalf("%d rows of %d features: %d bytes", len(s.Y), s.Features, len(s.Pix))
		}
	})
}
