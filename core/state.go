package core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Stateful is implemented by algorithms (and server optimizer states,
// ServerStepper) that declare their state between rounds, so that a run
// can be checkpointed at a round boundary and continued bit for bit
// (Settings.Checkpoint, Settings.Resume). State declares every field that
// an update changes, in a fixed order, to st, which either saves or
// restores them: the same method does both, so saving and loading cannot
// disagree. What Init rebuilds from the problem and the parameters (step
// size schedules, client weights, scratch) is not state.
type Stateful interface {
	State(st *State)
}

// ClientStateDeclarer is implemented by algorithms that keep a state per
// client in Client.State: ClientState declares client c's state to st,
// and on loading sets c.State (nil before). The engine calls it for every
// client, in order.
type ClientStateDeclarer interface {
	ClientState(c *Client, st *State)
}

// State saves or restores the named fields declared to it (see Stateful).
// Errors are sticky: after the first, further fields are ignored, and the
// engine reports it.
//
// A checkpoint is input (a run directory read back is untrusted): a field
// that indexes, counts or sizes something is declared with its range
// (IntIn, Vector), so that a forged value is refused here, with a
// message, instead of failing the run later with a runtime error.
type State struct {
	loading bool
	out     *bytes.Buffer
	in      []byte
	err     error
	dim     int // the problem's dimension (Vector); 0: not known
}

// Field kinds in the encoding.
const (
	kindFloats byte = iota + 1
	kindFloat
	kindInt
	kindBool
	kindInts
	kindBytes
)

var kindNames = map[byte]string{kindFloats: "float vector", kindFloat: "float", kindInt: "integer", kindBool: "boolean", kindInts: "integer vector", kindBytes: "byte string"}

func newSaveState() *State { return &State{out: new(bytes.Buffer)} }

func newLoadState(payload []byte) *State { return &State{loading: true, in: payload} }

// Loading reports whether st restores the fields (false: it saves them).
func (st *State) Loading() bool { return st.loading }

// Err is the first error met, or nil.
func (st *State) Err() error { return st.err }

// Fail records err (the first one is kept).
func (st *State) Fail(err error) {
	if st.err == nil {
		st.err = err
	}
}

func (st *State) putUint(x uint64) { st.out.Write(binary.AppendUvarint(st.out.AvailableBuffer(), x)) }

// putFloats appends the float64 bits of v, little-endian.
func (st *State) putFloats(v []float64) {
	st.out.Grow(8 * len(v))
	b := st.out.AvailableBuffer()
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	st.out.Write(b)
}

func (st *State) getUint(name string) uint64 {
	x, n := binary.Uvarint(st.in)
	if n <= 0 {
		st.Fail(fmt.Errorf("checkpoint ends inside field %q", name))
		return 0
	}
	st.in = st.in[n:]
	return x
}

// header writes or checks a field's name and kind; false: stop.
func (st *State) header(name string, kind byte) bool {
	if st.err != nil {
		return false
	}
	if !st.loading {
		st.putUint(uint64(len(name)))
		st.out.WriteString(name)
		st.out.WriteByte(kind)
		return true
	}
	n := st.getUint(name)
	if st.err != nil {
		return false
	}
	if n > uint64(len(st.in)) || len(st.in[n:]) < 1 {
		st.Fail(fmt.Errorf("checkpoint ends inside field %q", name))
		return false
	}
	got, k := string(st.in[:n]), st.in[n]
	st.in = st.in[n+1:]
	if got != name || k != kind {
		st.Fail(fmt.Errorf("checkpoint holds %s %q where %s %q is expected (a checkpoint of another algorithm or build)", kindNames[k], got, kindNames[kind], name))
		return false
	}
	return true
}

// Floats declares a vector of fixed length: on loading, the saved vector
// must have len(v) entries and is copied into v.
func (st *State) Floats(name string, v []float64) {
	if !st.header(name, kindFloats) {
		return
	}
	if !st.loading {
		st.putUint(uint64(len(v)))
		st.putFloats(v)
		return
	}
	n := st.getUint(name)
	if st.err == nil && n != uint64(len(v)) {
		st.Fail(fmt.Errorf("checkpoint field %q has %d entries, the run has %d", name, n, len(v)))
	}
	st.readFloats(name, v)
}

// FloatSlice declares a vector whose length may change (nil included): on
// loading, *v is reused when the length matches, replaced otherwise.
func (st *State) FloatSlice(name string, v *[]float64) {
	if !st.header(name, kindFloats) {
		return
	}
	if !st.loading {
		if *v == nil {
			st.putUint(0)
			return
		}
		st.putUint(uint64(len(*v)) + 1)
		st.putFloats(*v)
		return
	}
	n := st.getUint(name)
	if st.err != nil {
		return
	}
	if n == 0 {
		*v = nil
		return
	}
	n--
	if n > uint64(len(st.in))/8 {
		st.Fail(fmt.Errorf("checkpoint ends inside field %q", name))
		return
	}
	if uint64(len(*v)) != n || *v == nil {
		*v = make([]float64, n)
	}
	st.readFloats(name, *v)
}

func (st *State) readFloats(name string, v []float64) {
	if st.err != nil {
		return
	}
	if len(st.in) < 8*len(v) {
		st.Fail(fmt.Errorf("checkpoint ends inside field %q", name))
		return
	}
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(st.in[8*i:]))
	}
	st.in = st.in[8*len(v):]
}

// Float declares a scalar.
func (st *State) Float(name string, x *float64) {
	if !st.header(name, kindFloat) {
		return
	}
	if !st.loading {
		st.putFloats([]float64{*x})
		return
	}
	v := []float64{0}
	st.readFloats(name, v)
	*x = v[0]
}

// Int declares an integer.
func (st *State) Int(name string, x *int) {
	y := int64(*x)
	st.Int64(name, &y)
	*x = int(y)
}

// IntIn declares an integer that lies in lo..hi: on loading, a saved value
// outside is refused.
func (st *State) IntIn(name string, x *int, lo, hi int) {
	st.Int(name, x)
	if st.loading && st.err == nil && (*x < lo || *x > hi) {
		st.Fail(fmt.Errorf("checkpoint field %q is %d, outside %d..%d", name, *x, lo, hi))
	}
}

// Count declares a count (an integer ≥ 0).
func (st *State) Count(name string, x *int) {
	st.Int(name, x)
	if st.loading && st.err == nil && *x < 0 {
		st.Fail(fmt.Errorf("checkpoint field %q is %d, a count below 0", name, *x))
	}
}

// Count64 declares a 64-bit count (an integer ≥ 0).
func (st *State) Count64(name string, x *int64) {
	st.Int64(name, x)
	if st.loading && st.err == nil && *x < 0 {
		st.Fail(fmt.Errorf("checkpoint field %q is %d, a count below 0", name, *x))
	}
}

// Positive declares a scalar that must be finite and > 0 (a penalty
// weight, a radius, a step size).
func (st *State) Positive(name string, x *float64) {
	st.Float(name, x)
	if st.loading && st.err == nil && !(*x > 0 && !math.IsInf(*x, 1)) {
		st.Fail(fmt.Errorf("checkpoint field %q is %g, not a finite number > 0", name, *x))
	}
}

// Vector declares a vector of the problem's dimension, or nil (see
// FloatSlice): on loading, a saved vector of another length is refused.
func (st *State) Vector(name string, v *[]float64) {
	st.VectorOf(name, v, st.dim)
}

// VectorOf declares a vector of n entries, or nil (see FloatSlice): on
// loading, a saved vector of another length is refused (n ≤ 0: any).
func (st *State) VectorOf(name string, v *[]float64, n int) {
	st.FloatSlice(name, v)
	if st.loading && st.err == nil && *v != nil && n > 0 && len(*v) != n {
		st.Fail(fmt.Errorf("checkpoint field %q has %d entries, the run has %d", name, len(*v), n))
	}
}

// Int64 declares a 64-bit integer.
func (st *State) Int64(name string, x *int64) {
	if !st.header(name, kindInt) {
		return
	}
	if !st.loading {
		st.out.Write(binary.AppendVarint(st.out.AvailableBuffer(), *x))
		return
	}
	y, n := binary.Varint(st.in)
	if n <= 0 {
		st.Fail(fmt.Errorf("checkpoint ends inside field %q", name))
		return
	}
	st.in = st.in[n:]
	*x = y
}

// Bool declares a boolean.
func (st *State) Bool(name string, x *bool) {
	if !st.header(name, kindBool) {
		return
	}
	if !st.loading {
		b := byte(0)
		if *x {
			b = 1
		}
		st.out.WriteByte(b)
		return
	}
	if len(st.in) < 1 {
		st.Fail(fmt.Errorf("checkpoint ends inside field %q", name))
		return
	}
	*x = st.in[0] == 1
	st.in = st.in[1:]
}

// Ints declares an integer vector whose length may change (see FloatSlice).
func (st *State) Ints(name string, v *[]int) {
	if !st.header(name, kindInts) {
		return
	}
	if !st.loading {
		if *v == nil {
			st.putUint(0)
			return
		}
		st.putUint(uint64(len(*v)) + 1)
		for _, x := range *v {
			st.out.Write(binary.AppendVarint(st.out.AvailableBuffer(), int64(x)))
		}
		return
	}
	n := st.getUint(name)
	if st.err != nil {
		return
	}
	if n == 0 {
		*v = nil
		return
	}
	n--
	if n > uint64(len(st.in)) {
		st.Fail(fmt.Errorf("checkpoint ends inside field %q", name))
		return
	}
	if uint64(len(*v)) != n || *v == nil {
		*v = make([]int, n)
	}
	for i := range *v {
		y, k := binary.Varint(st.in)
		if k <= 0 {
			st.Fail(fmt.Errorf("checkpoint ends inside field %q", name))
			return
		}
		(*v)[i] = int(y)
		st.in = st.in[k:]
	}
}

// Records declares a list of records: their number, at most most when
// loading, and each record's counts and values; columns ≥ 0 is the number
// of values a loaded record must have (a negative columns checks none).
func (st *State) Records(recs *[]Record, most, columns int) {
	n := len(*recs)
	st.Int("records", &n)
	if st.err != nil {
		return
	}
	if st.loading {
		if n < 0 || n > most {
			st.Fail(fmt.Errorf("checkpoint holds %d records", n))
			return
		}
		*recs = make([]Record, n)
	}
	for i := range *recs {
		r := &(*recs)[i]
		st.Count("record round", &r.Round)
		st.Count64("record up", &r.Up)
		st.Count64("record down", &r.Down)
		st.Count("record communication rounds", &r.CommRounds)
		st.Count64("record samples", &r.Samples)
		st.FloatSlice("record values", &r.Values)
		if st.loading && st.err == nil && columns >= 0 && len(r.Values) != columns {
			st.Fail(fmt.Errorf("a record has %d values, the run measures %d columns", len(r.Values), columns))
		}
	}
}

// Bytes declares a byte string (a nested checkpoint: a pipeline's stage);
// on loading, *v is a copy.
func (st *State) Bytes(name string, v *[]byte) {
	if !st.header(name, kindBytes) {
		return
	}
	if !st.loading {
		st.putUint(uint64(len(*v)))
		st.out.Write(*v)
		return
	}
	n := st.getUint(name)
	if st.err == nil && n > uint64(len(st.in)) {
		st.Fail(fmt.Errorf("checkpoint ends inside field %q", name))
	}
	if st.err != nil {
		return
	}
	*v = bytes.Clone(st.in[:n])
	st.in = st.in[n:]
}

// Stepper declares the state of a server optimizer's stepper, which must
// be Stateful (a stateless one declares nothing).
func (st *State) Stepper(s ServerStepper) {
	sf, ok := s.(Stateful)
	if !ok {
		st.Fail(fmt.Errorf("server optimizer state %T does not declare its state (core.Stateful)", s))
		return
	}
	if st.err == nil {
		sf.State(st)
	}
}

// errNotStateful marks a run whose algorithm or effects do not declare
// their state.
var errNotStateful = errors.New("does not declare its state (core.Stateful): it restarts from round 0")
