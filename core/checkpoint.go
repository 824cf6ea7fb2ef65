package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
)

// A checkpoint is the engine's state at a round boundary (see
// docs/architecture.md, "Checkpoints"): a header — the magic line, the
// format version, the run's identity key given by the caller, the
// payload's length and its sha256 — and the payload, the fields that the
// engine, the algorithm (Stateful), its clients (ClientStateDeclarer) and
// the system effects declare, each with its name and kind.
const (
	checkpointMagic = "fedlab checkpoint\n"
	// CheckpointVersion is the version of the checkpoint format.
	CheckpointVersion uint32 = 1
)

// encodeCheckpoint writes the header and payload to w.
func encodeCheckpoint(w io.Writer, key string, payload []byte) error {
	var b bytes.Buffer
	b.WriteString(checkpointMagic)
	b.Write(binary.LittleEndian.AppendUint32(nil, CheckpointVersion))
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(key))))
	b.WriteString(key)
	b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(payload))))
	sum := sha256.Sum256(payload)
	b.Write(sum[:])
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// decodeCheckpoint checks data's header against key and its payload's
// length and sha256, and returns the payload.
func decodeCheckpoint(data []byte, key string) ([]byte, error) {
	short := fmt.Errorf("checkpoint is truncated (%d bytes)", len(data))
	if !bytes.HasPrefix(data, []byte(checkpointMagic)) {
		if len(data) < len(checkpointMagic) && bytes.HasPrefix([]byte(checkpointMagic), data) {
			return nil, short
		}
		return nil, fmt.Errorf("not a fedlab checkpoint")
	}
	data = data[len(checkpointMagic):]
	if len(data) < 8 {
		return nil, short
	}
	if v := binary.LittleEndian.Uint32(data); v != CheckpointVersion {
		return nil, fmt.Errorf("checkpoint format version %d, this build reads version %d", v, CheckpointVersion)
	}
	n := uint64(binary.LittleEndian.Uint32(data[4:]))
	data = data[8:]
	if uint64(len(data)) < n+8+sha256.Size {
		return nil, short
	}
	if got := string(data[:n]); got != key {
		return nil, fmt.Errorf("checkpoint belongs to run %q, not to this run %q", got, key)
	}
	data = data[n:]
	size := binary.LittleEndian.Uint64(data)
	var sum [sha256.Size]byte
	copy(sum[:], data[8:])
	payload := data[8+sha256.Size:]
	switch {
	case uint64(len(payload)) < size:
		return nil, short
	case uint64(len(payload)) > size:
		return nil, fmt.Errorf("checkpoint has %d bytes after its payload", uint64(len(payload))-size)
	case sha256.Sum256(payload) != sum:
		return nil, fmt.Errorf("checkpoint is damaged: its payload does not match its sha256")
	}
	return payload, nil
}

// VerifyCheckpoint checks that data is a checkpoint of this format
// version for the run key, complete and intact (its sha256), without
// reading its state.
func VerifyCheckpoint(data []byte, key string) error {
	_, err := decodeCheckpoint(data, key)
	return err
}

// CheckpointRounds returns the rounds done that checkpoint data of run
// key records (how far the run got), after VerifyCheckpoint's checks.
func CheckpointRounds(data []byte, key string) (int, error) {
	payload, err := decodeCheckpoint(data, key)
	if err != nil {
		return 0, err
	}
	st := newLoadState(payload)
	done := 0
	st.Int("rounds done", &done)
	return done, st.err
}

// WriteCheckpoint writes to w a checkpoint of run key (this format)
// holding the fields declare declares to a saving State, for callers
// that run the engine in parts (a pipeline's stages): its first field
// must be the Int "rounds done" that CheckpointRounds reads.
func WriteCheckpoint(w io.Writer, key string, declare func(st *State)) error {
	st := newSaveState()
	declare(st)
	if st.err != nil {
		return st.err
	}
	return encodeCheckpoint(w, key, st.out.Bytes())
}

// ReadCheckpoint checks checkpoint data of run key as VerifyCheckpoint
// does and restores the fields declare declares (those WriteCheckpoint
// wrote, in the same order) from it; a field of another name or kind,
// or bytes left over, is an error.
func ReadCheckpoint(data []byte, key string, declare func(st *State)) error {
	payload, err := decodeCheckpoint(data, key)
	if err != nil {
		return err
	}
	st := newLoadState(payload)
	declare(st)
	if st.err == nil && len(st.in) != 0 {
		st.err = fmt.Errorf("%d bytes left after the checkpoint's fields", len(st.in))
	}
	return st.err
}

// algName names the run's algorithm in messages.
func (e *engine) algName() string {
	if e.s.AlgorithmName != "" {
		return e.s.AlgorithmName
	}
	return fmt.Sprintf("%T", e.alg)
}

// saveState writes a checkpoint of the engine after done rounds of the
// run to w.
func (e *engine) saveState(done int, w io.Writer) error {
	st := newSaveState()
	if err := e.state(st, done); err != nil {
		return err
	}
	return encodeCheckpoint(w, e.s.CheckpointKey, st.out.Bytes())
}

// loadState restores the engine from checkpoint data; the run continues
// after the rounds it had done (e.start).
func (e *engine) loadState(data []byte) error {
	payload, err := decodeCheckpoint(data, e.s.CheckpointKey)
	if err != nil {
		return err
	}
	st := newLoadState(payload)
	st.dim = e.dim
	if err := e.state(st, 0); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if len(st.in) != 0 {
		return fmt.Errorf("checkpoint: %d bytes left after the run's state (a checkpoint of another algorithm or build)", len(st.in))
	}
	e.alg.Model(e.model)
	return nil
}

// state declares the engine's state to st (saving done, or loading it
// into e.start).
func (e *engine) state(st *State, done int) error {
	sf, ok := e.alg.(Stateful)
	if !ok {
		return fmt.Errorf("algorithm %q %w", e.algName(), errNotStateful)
	}
	cs, declares := e.alg.(ClientStateDeclarer)
	if !declares {
		for _, c := range e.clients {
			if c.State != nil {
				return fmt.Errorf("algorithm %q keeps state per client but does not declare it (core.ClientStateDeclarer): it restarts from round 0", e.algName())
			}
		}
	}
	st.Int("rounds done", &done)
	if st.loading && st.err == nil {
		if done < 0 || done > e.s.Rounds {
			return fmt.Errorf("checkpoint after round %d of a run of %d rounds", done, e.s.Rounds)
		}
		e.start = done
	}
	dim, M := e.dim, len(e.clients)
	st.Int("dimension", &dim)
	st.Int("clients", &M)
	if st.loading && st.err == nil && (dim != e.dim || M != len(e.clients)) {
		return fmt.Errorf("checkpoint of a problem with dimension %d and %d clients, the run has %d and %d", dim, M, e.dim, len(e.clients))
	}
	st.Count64("up", &e.up)
	st.Count64("down", &e.down)
	st.Count("communication rounds", &e.commRounds)
	st.Float("divergence scale", &e.scale)
	e.recordsState(st)
	accessed, steps := make([]int, len(e.clients)), make([]int, len(e.clients))
	for m, c := range e.clients {
		accessed[m], steps[m] = int(c.Accessed), c.Steps
	}
	clientInts(st, "samples accessed", accessed)
	clientInts(st, "local steps", steps)
	for m, c := range e.clients {
		if st.loading {
			c.Accessed, c.Steps = int64(accessed[m]), steps[m]
		}
		if declares {
			cs.ClientState(c, st)
		}
	}
	if st.err == nil {
		sf.State(st)
	}
	e.systemState(st)
	return st.err
}

// clientInts declares one integer per client, v (on loading, the saved
// vector must have len(v) entries and is copied into v).
func clientInts(st *State, name string, v []int) {
	got := v
	st.Ints(name, &got)
	if st.loading && st.err == nil {
		if len(got) != len(v) {
			st.Fail(fmt.Errorf("checkpoint field %q has %d entries, the run has %d clients", name, len(got), len(v)))
			return
		}
		for m, x := range got {
			if x < 0 {
				st.Fail(fmt.Errorf("checkpoint field %q is %d for client %d, a count below 0", name, x, m))
				return
			}
		}
		copy(v, got)
	}
}

// recordsState declares the records measured so far.
func (e *engine) recordsState(st *State) {
	st.Records(&e.res.Records, len(e.evalAt), len(e.res.Metrics))
}

// systemState declares the state of the system effects: the clients'
// online states, the error-feedback memories, the clients' copy of the
// broadcast, the rounds noised (the privacy accountant) and the bits sent.
// Their random streams are derived per (seed, run, round, client) and
// carry no state across rounds.
func (e *engine) systemState(st *State) {
	on := e.sys != nil
	st.Bool("system effects", &on)
	if st.err != nil {
		return
	}
	if on != (e.sys != nil) {
		st.Fail(fmt.Errorf("checkpoint of a run with different system effects"))
		return
	}
	if !on {
		return
	}
	sys := e.sys
	st.Bool("availability started", &sys.started)
	online := make([]int, len(sys.online))
	for m, on := range sys.online {
		if on {
			online[m] = 1
		}
	}
	clientInts(st, "online", online)
	if st.loading {
		for m := range sys.online {
			sys.online[m] = online[m] == 1
		}
	}
	st.IntIn("rounds noised", &sys.noised, 0, e.start)
	st.Count64("bits up", &sys.bitsUp)
	st.Count64("bits down", &sys.bitsDown)
	n := len(sys.replica)
	st.Int("broadcast copies", &n)
	if st.loading && st.err == nil {
		if n < 0 || n > e.dnShape.Vecs {
			st.Fail(fmt.Errorf("checkpoint holds %d broadcast copies", n))
			return
		}
		sys.replica = make([][]float64, n)
	}
	for i := range sys.replica {
		st.VectorOf("broadcast copy", &sys.replica[i], len(e.downMsg.Vecs[i]))
	}
	for m := range sys.errs {
		k := len(sys.errs[m])
		st.Int("error memories", &k)
		if st.err != nil {
			return
		}
		if st.loading {
			if k < 0 || k > e.upShape.Vecs {
				st.Fail(fmt.Errorf("checkpoint holds %d error memories of client %d", k, m))
				return
			}
			sys.errs[m] = nil
			if k > 0 {
				sys.errs[m] = make([][]float64, k)
			}
		}
		for j := range sys.errs[m] {
			st.Vector("error memory", &sys.errs[m][j])
		}
	}
}
