package algorithms_test

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
)

// ckptField is a field of a checkpoint's payload: its name, kind byte
// and where its value lies in the payload.
type ckptField struct {
	name       string
	kind       byte
	start, end int
}

// checkpointFields splits a checkpoint (the format of core/checkpoint.go:
// magic line, version, key, payload length and sha256, then each field
// as its name's length, name, kind and value) into its header and its
// payload's fields, to forge values whose checksum is then recomputed.
func checkpointFields(t *testing.T, ckpt []byte) (head, payload []byte, fields []ckptField) {
	t.Helper()
	at := len("fedlab checkpoint\n") + 4
	at += 4 + int(binary.LittleEndian.Uint32(ckpt[at:]))
	at += 8 + sha256.Size
	head, payload = ckpt[:at], ckpt[at:]
	uv := func(b []byte) (uint64, int) { x, n := binary.Uvarint(b); return x, n }
	for p := 0; p < len(payload); {
		n, k := uv(payload[p:])
		name := string(payload[p+k : p+k+int(n)])
		kind := payload[p+k+int(n)]
		start := p + k + int(n) + 1
		end := start
		switch kind {
		case 1: // a float vector: Floats writes its length, FloatSlice its length + 1 (0: nil)
			l, k := uv(payload[start:])
			end = start + k + 8*int(l)
			if !fieldAt(payload, end) {
				end = start + k + 8*(int(l)-min(int(l), 1))
			}
		case 2:
			end = start + 8
		case 3:
			_, k := binary.Varint(payload[start:])
			end = start + k
		case 4:
			end = start + 1
		case 5:
			l, k := uv(payload[start:])
			end = start + k
			for range l - min(l, 1) {
				_, k := binary.Varint(payload[end:])
				end += k
			}
		case 6:
			l, k := uv(payload[start:])
			end = start + k + int(l)
		default:
			t.Fatalf("field %q of kind %d", name, kind)
		}
		fields = append(fields, ckptField{name, kind, start, end})
		p = end
	}
	return head, payload, fields
}

// fieldAt reports whether a field begins at p of the payload, or the
// payload ends there: how checkpointFields tells a Floats vector from a
// FloatSlice one.
func fieldAt(payload []byte, p int) bool {
	if p == len(payload) {
		return true
	}
	if p > len(payload) {
		return false
	}
	n, k := binary.Uvarint(payload[p:])
	if k <= 0 || n == 0 || p+k+int(n) >= len(payload) {
		return false
	}
	for _, c := range payload[p+k : p+k+int(n)] {
		if c < ' ' || c > '~' {
			return false
		}
	}
	kind := payload[p+k+int(n)]
	return kind >= 1 && kind <= 6
}

// withInt is ckpt with field f's integer value replaced by v, its
// payload's length and sha256 recomputed: a valid checkpoint.
func withInt(head, payload []byte, f ckptField, v int64) []byte {
	p := append(append(append([]byte{}, payload[:f.start]...), binary.AppendVarint(nil, v)...), payload[f.end:]...)
	h := append([]byte{}, head...)
	binary.LittleEndian.PutUint64(h[len(h)-8-sha256.Size:], uint64(len(p)))
	sum := sha256.Sum256(p)
	copy(h[len(h)-sha256.Size:], sum[:])
	return append(h, p...)
}

// TestForgedCheckpointsAreRefused: a checkpoint whose checksum is valid
// but one of whose integer fields is forged to −5 (a stage, a round or
// step counter, a count) is refused with a message naming the field, for
// every algorithm of the registry on the dense problem, on the problem
// with system effects, and in the multistage variants: never a runtime
// error, which the run's manifest would store.
func TestForgedCheckpointsAreRefused(t *testing.T) {
	names := registry.Names(registry.Algorithm)
	cases := checkpointCases()
	var chosen []checkpointCase
	for _, c := range append(cases, checkpointVariants()...) {
		if c.name == "dense" || c.name == "dense+effects" || c.algs != nil {
			chosen = append(chosen, c)
		}
	}
	forged := map[string]int{}
	for _, cs := range chosen {
		algs := cs.algs
		if algs == nil {
			for _, name := range names {
				algs = append(algs, plan.Algorithm{Component: plan.Component{Kind: registry.Algorithm, Name: name, Params: minimalParams(t, name)}})
			}
		}
		b := plan.NewBuilder()
		base := core.Settings{Rounds: 7, ClientsPerRound: cs.perRound, LocalEpochs: 1, Batch: 3, EvalEvery: 2}
		for _, alg := range algs {
			for k, v := range minimalParams(t, alg.Name) {
				if _, ok := alg.Params[k]; !ok {
					alg.Params[k] = v
				}
			}
			js, err := b.Compare(plan.Compare{Problem: cs.problem, Settings: base, Seeds: []uint64{1}, System: cs.system,
				Metrics: []plan.Component{{Kind: registry.Metric, Name: "objective"}}, Algorithms: []plan.Algorithm{alg}})
			if err != nil {
				continue
			}
			for _, j := range js {
				forgeEachInt(t, cs.name, j, forged)
			}
		}
	}
	for _, name := range []string{"stage", "rounds", "local steps so far", "stage rounds", "rounds noised", "record round", "preconditioner updates", "extra floats round"} {
		if forged[name] == 0 {
			t.Errorf("field %q never forged (fields forged: %v)", name, forged)
		}
	}
}

// forgeEachInt resumes job j from its checkpoint after round 3 with each
// integer field set to −5 in turn, counting the fields tried in forged.
func forgeEachInt(t *testing.T, problem string, j experiment.Job, forged map[string]int) {
	_, ckpt := checkpointAt(t, j, 3)
	if ckpt == nil {
		return
	}
	head, payload, fields := checkpointFields(t, ckpt)
	for _, f := range fields {
		if f.kind != 3 {
			continue
		}
		s := settings(j)
		s.Resume = withInt(head, payload, f, -5)
		res := core.Run(j.Problem, build(t, j), s, j.Metrics)
		what := fmt.Sprintf("%s %v on %s, %q = -5", j.Algorithm, j.Params, problem, f.name)
		if res.Status != core.Failed || !strings.HasPrefix(res.Err, "cannot resume from the checkpoint: checkpoint") || strings.Contains(res.Err, "runtime error") {
			t.Errorf("%s: %s: %q, want the checkpoint refused", what, res.Status, res.Err)
		}
		forged[f.name]++
	}
}
