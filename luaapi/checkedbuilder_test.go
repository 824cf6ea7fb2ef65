package luaapi

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckedBuilderChecksWhatItAllocates writes pieces of many sizes, the
// buffer full or not when a large one arrives, and asserts that every
// growth was checked for at least the capacity it then had (what the
// process holds beside the old buffer), and that a refused growth writes
// nothing.
func TestCheckedBuilderChecksWhatItAllocates(t *testing.T) {
	var checked []uint64
	b := checkedBuilder{check: func(need uint64) error { checked = append(checked, need); return nil }}
	var want strings.Builder
	for i, n := range []int{1, 3, 8, 2, 100, 1, 1, 700, 5, 4096, 3, 10000, 1, 64, 40000, 7, 100001, 3, 250000, 1} {
		before, calls := b.b.Cap(), len(checked)
		piece := strings.Repeat(string(rune('a'+i)), n)
		if err := b.WriteString(piece); err != nil {
			t.Fatal(err)
		}
		want.WriteString(piece)
		if b.b.Cap() == before {
			if len(checked) != calls {
				t.Fatalf("piece %d (%d bytes): checked %d without growing", i, n, checked[calls])
			}
			continue
		}
		if len(checked) != calls+1 {
			t.Fatalf("piece %d (%d bytes): the buffer grew from %d to %d bytes unchecked", i, n, before, b.b.Cap())
		}
		if got := checked[calls]; got < uint64(b.b.Cap()) {
			t.Errorf("piece %d (%d bytes, %d of %d bytes used): checked %d bytes, the growth allocated %d",
				i, n, b.b.Len()-n, before, got, b.b.Cap())
		}
	}
	if b.b.String() != want.String() {
		t.Fatal("the builder's string differs from the pieces written")
	}

	refused := errors.New("over the ceiling")
	b.check = func(uint64) error { return refused }
	length := b.b.Len()
	if err := b.WriteString(strings.Repeat("z", b.b.Cap()+1)); !errors.Is(err, refused) {
		t.Fatalf("a refused growth gave %v", err)
	}
	if b.b.Len() != length {
		t.Fatalf("a refused growth wrote %d bytes", b.b.Len()-length)
	}
}
