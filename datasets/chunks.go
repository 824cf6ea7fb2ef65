package datasets

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
)

// textChunk is the size of the chunks of whole lines the text readers
// (svmlight, CSV) parse in parallel.
const textChunk = 1 << 20

// chunk is consecutive whole lines of a text file: their text (each line
// with its line break, the last one possibly without at the end of the
// file) and the number of the first. For a splitter that keeps the text
// of a failed read (splitter.tail), err is the read error that follows
// the text, whose last line is then the partial line read before it.
type chunk struct {
	text  []byte
	first int
	err   error
}

// reader reads the chunk's text, then fails with its read error (if any).
func (c chunk) reader() io.Reader {
	if c.err == nil {
		return bytes.NewReader(c.text)
	}
	return io.MultiReader(bytes.NewReader(c.text), failing{c.err})
}

// failing is a reader that fails with err.
type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// splitter cuts text into chunks: r is read in chunks of about size bytes
// ending where cut says the last whole record of a text ends (0: none
// yet), numbering lines from first. With tail, a read error ends the
// text in a last chunk holding everything read (chunk.err); without, the
// complete lines before it are a chunk and the error a *readError.
type splitter struct {
	r     io.Reader
	size  int
	first int
	cut   func(text []byte) int
	tail  bool
}

// lineEnd is the cut of line-oriented text: after its last line break.
func lineEnd(text []byte) int { return bytes.LastIndexByte(text, '\n') + 1 }

// readError is an error reading the text, with the number of the line
// being read when it happened (the first line not yet read whole).
type readError struct {
	line int
	err  error
}

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// item is a chunk on its way through readChunks, and its parse's result;
// or, with err set, the read error that ends the text.
type item struct {
	c      chunk
	result chan any
	err    *readError
}

// readChunks reads r in chunks of whole lines of about size bytes, calls
// parse on each on up to GOMAXPROCS goroutines, and join on each result in
// file order, on the calling goroutine: what join sees does not depend on
// the number of goroutines. It returns the first error join returns
// (reading no further), or, once every chunk before it is joined, a read
// error as a *readError naming the line being read. The text read ahead
// of join is bounded (a few chunks per goroutine), so the reader's checks
// (the memory ceiling, the build's context) see the memory of what is parsed.
func readChunks(sp splitter, parse func(chunk) any, join func(chunk, any) error) error {
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan item)
	order := make(chan item, 2*workers)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for it := range jobs {
				select {
				case <-done:
					it.result <- nil
				default:
					it.result <- parse(it.c)
				}
			}
		})
	}
	wg.Go(func() {
		defer close(order)
		defer close(jobs)
		send := func(it item) bool {
			select {
			case order <- it:
			case <-done:
				return false
			}
			if it.err != nil {
				return true
			}
			select {
			case jobs <- it:
				return true
			case <-done:
				it.result <- nil
				return false
			}
		}
		sp.split(func(c chunk) bool {
			return send(item{c: c, result: make(chan any, 1)})
		}, func(err *readError) { send(item{err: err}) })
	})
	var err error
	for it := range order {
		if it.err != nil {
			err = it.err
			break
		}
		if err = join(it.c, <-it.result); err != nil {
			break
		}
	}
	close(done)
	for it := range order { // unblock and drain the reader
		if it.result != nil {
			<-it.result
		}
	}
	wg.Wait()
	return err
}

// split reads the text and calls emit with each chunk of whole records
// of about size bytes (a record longer than size makes a longer chunk),
// the text after the last cut at the end of the file being the last
// record; a read error other than io.EOF ends the text (see splitter). It
// stops early when emit returns false.
func (sp splitter) split(emit func(chunk) bool, fail func(*readError)) {
	line := sp.first
	var carry []byte
	for {
		buf := make([]byte, max(sp.size, 2*len(carry)))
		n := copy(buf, carry)
		var err error
		for n < len(buf) && err == nil {
			var m int
			m, err = sp.r.Read(buf[n:])
			n += m
		}
		text := buf[:n]
		end := sp.cut(text)
		if err != nil {
			eof := errors.Is(err, io.EOF)
			if eof || sp.tail {
				end = n
			}
			c := chunk{text: text[:end], first: line}
			if !eof && sp.tail {
				c.err = err
			}
			if (end > 0 || c.err != nil) && !emit(c) {
				return
			}
			if !eof && !sp.tail {
				fail(&readError{line: line + bytes.Count(text[:end], []byte{'\n'}), err: err})
			}
			return
		}
		carry = text[end:]
		if end == 0 { // no line break yet: read a longer chunk
			continue
		}
		if !emit(chunk{text: text[:end], first: line}) {
			return
		}
		line += bytes.Count(text[:end], []byte{'\n'})
	}
}
