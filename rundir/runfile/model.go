package runfile

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/internal/escape"
)

// SaveModel writes a run's final model, one value per line at full
// precision, after a header of comment lines (starting with "#") that name
// the run, its sweep configuration if any, and the parameter layout (free
// text with control characters is quoted, so that it stays on its line),
// e.g.
//
//	# fedlab model: fedavg (algorithm fedavg, seed 1, status done)
//	# config: eta_c=0.001 eta_s=1
//	# layout: kernel 1024x1 (reg) + bias 1x1, row-major blocks in this order
//	# dim: 1025
func SaveModel(path string, run experiment.Run) error {
	w := run.Result.Model
	if w == nil {
		return fmt.Errorf("run %s (seed %d) has no model: %s", run.Label, run.Seed, run.Result.Err)
	}
	return atomicfile.Write(path, func(out io.Writer) error {
		fmt.Fprintf(out, "# fedlab model: %s (algorithm %s, seed %d, status %s)\n",
			escape.Line(run.Label), escape.Line(run.Algorithm), run.Seed, escape.Line(string(run.Result.Status)))
		if len(run.Config) > 0 {
			fmt.Fprintf(out, "# config: %s\n", escape.Line(run.Config.String()))
		}
		fmt.Fprintf(out, "# layout: %s, row-major blocks in this order\n", escape.Line(fmt.Sprint(run.Layout)))
		fmt.Fprintf(out, "# dim: %d\n", len(w))
		buf := make([]byte, 0, 32)
		for _, v := range w {
			buf = strconv.AppendFloat(buf[:0], v, 'g', -1, 64)
			buf = append(buf, '\n')
			if _, err := out.Write(buf); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadModel reads a model written by SaveModel (comment lines are skipped).
// NaN and ±Inf entries of a diverged run's model read back as such.
func ReadModel(path string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseModel(f, path)
}

// ParseModel reads a model written by SaveModel from r, whose name (a
// path) messages give.
func ParseModel(r io.Reader, path string) ([]float64, error) {
	var w []float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), math.MaxInt) // header lines hold labels of any length
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: not a number: %q", path, line, s)
		}
		w = append(w, v)
	}
	return w, sc.Err()
}
