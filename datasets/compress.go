package datasets

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Magic numbers of the compressed formats Decompress recognizes.
var (
	magicGzip  = []byte{0x1f, 0x8b}
	magicBzip2 = []byte("BZh")
	magicXz    = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	magicZstd  = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Decompress returns a reader of r's content, decompressing gzip, bzip2,
// xz or zstd data recognized by its magic number (whatever the file's
// extension); other data are returned as they are. gzip and bzip2 use the
// standard library, xz github.com/ulikunitz/xz and zstd
// github.com/klauspost/compress/zstd. Everything streams: memory does not
// grow with the file. name is used in errors.
func Decompress(r io.Reader, name string) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(6) // shorter at the end of a tiny file; matched below
	wrap := func(format string, err error) error {
		return fmt.Errorf("%s: not a valid %s file: %w", name, format, err)
	}
	switch {
	case bytes.HasPrefix(head, magicGzip):
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, wrap("gzip", err)
		}
		return z, nil
	case bytes.HasPrefix(head, magicBzip2):
		return io.NopCloser(bzip2.NewReader(br)), nil
	case bytes.HasPrefix(head, magicXz):
		z, err := xz.NewReader(br)
		if err != nil {
			return nil, wrap("xz", err)
		}
		return io.NopCloser(z), nil
	case bytes.HasPrefix(head, magicZstd):
		z, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow))
		if err != nil {
			return nil, wrap("zstd", err)
		}
		return zstdCloser{z}, nil
	}
	return io.NopCloser(br), nil
}

// zstdMaxWindow is the largest zstd window the reader accepts (the
// decoder's default; --long=27 files and below read).
const zstdMaxWindow = 1 << 27

// zstdCloser releases a zstd decoder's resources on Close.
type zstdCloser struct{ *zstd.Decoder }

func (z zstdCloser) Close() error {
	z.Decoder.Close()
	return nil
}
