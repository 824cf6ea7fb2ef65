package datasets

import (
	"fmt"
	"strings"

	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/registry"
)

// namesShown is how many dropped writers a notice names.
const namesShown = 5

// noteDropped says on c's notice channel that the writers dropped of the
// total writers of the split name were dropped, and why (the filter that
// dropped them): how many, and the first namesShown names. It says nothing
// when none was dropped.
func noteDropped(c registry.BuildContext, reader, name string, total int, dropped []string, why string) {
	if len(dropped) == 0 {
		return
	}
	shown := make([]string, min(len(dropped), namesShown))
	for i := range shown {
		shown[i] = echo(dropped[i]).quoted()
	}
	names := strings.Join(shown, ", ")
	if more := len(dropped) - len(shown); more > 0 {
		names += fmt.Sprintf(" and %d more", more)
	}
	c.Note("%s: %s: %d of %d writers dropped (%s): %s", reader, escape.Line(name), len(dropped), total, why, names)
}

// droppedWhy is why a filter drops a writer: fewer than minSamples
// samples, counted after the labels filter (if labels is not empty).
func droppedWhy(minSamples int, labels []float64) string {
	switch {
	case len(labels) == 0:
		return fmt.Sprintf("fewer than min_samples = %d samples", minSamples)
	case minSamples <= 1:
		return "no sample with a label in labels = " + labelText(labels)
	}
	return fmt.Sprintf("fewer than min_samples = %d samples with a label in labels = %s", minSamples, labelText(labels))
}

// noteDroppedUsers says which users of the LEAF split s min_samples and
// labels drop (LEAF's sampling by fraction is not a drop: it is asked for
// as such).
func (s *leafSplit) noteDroppedUsers(c registry.BuildContext, minSamples int, labels []float64) {
	if minSamples <= 0 && len(labels) == 0 {
		return
	}
	least := max(minSamples, 1) // a user left without samples has no rows to give
	var dropped []string
	for _, u := range s.users {
		if u.n < least {
			dropped = append(dropped, u.id)
		}
	}
	noteDropped(c, "leaf", s.name, len(s.users), dropped, droppedWhy(minSamples, labels))
}

// noteDroppedWriters says which writers of the split p the labels filter
// left without a sample.
func (p *pooled) noteDroppedWriters(c registry.BuildContext, reader string, labels []float64) {
	if p.client == nil || len(labels) == 0 {
		return
	}
	rows := make([]int, len(p.ids))
	for _, w := range p.client[:p.n] {
		rows[w]++
	}
	var dropped []string
	for w, n := range rows {
		if n == 0 {
			dropped = append(dropped, p.ids[w])
		}
	}
	noteDropped(c, reader, p.name, len(p.ids), dropped, droppedWhy(0, labels))
}
