package datasets

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The labels key of leaf and parquet keeps the samples whose label is
// listed (FEMNIST-10: FEMNIST's digits, labels = {0, ..., 9}), relabelled
// 0..k-1 in the listed order (so {0, ..., 9} keeps the labels as they
// are), before LEAF's user sampling and before any partition. The rows
// kept move to the front of the arrays read, in order: no copy, so the
// memory the files declare stays an upper bound.

// checkLabelList refuses a labels list that is not a set of class labels
// or that does not match classes (the losses take the number of classes
// from the dataset).
func checkLabelList(labels []float64, classes int) error {
	if len(labels) == 0 {
		return nil
	}
	seen := map[float64]int{}
	for i, v := range labels {
		if v != math.Trunc(v) || v < 0 {
			return fmt.Errorf("labels[%d] = %g is not a class label (an integer ≥ 0)", i+1, v)
		}
		if j, dup := seen[v]; dup {
			return fmt.Errorf("labels lists %g twice (labels[%d] and labels[%d])", v, j+1, i+1)
		}
		seen[v] = i
	}
	if classes != len(labels) {
		return fmt.Errorf("labels lists %d labels, which become classes 0..%d in the listed order: set classes = %d, not %d",
			len(labels), len(labels)-1, len(labels), classes)
	}
	return nil
}

// labelText is the list as a Lua table, for messages.
func labelText(labels []float64) string {
	s := make([]string, len(labels))
	for i, v := range labels {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// keepLabels keeps the rows (F values each, in pix or x, whichever is
// not nil) whose label y is listed, moved to the front in order and
// relabelled by their place in labels. It returns the number of rows
// kept, each kept row's index before, and how many rows each listed
// label kept.
func keepLabels(labels []float64, pix []byte, x, y []float64, F int) (n int, kept []int, count []int) {
	to := make(map[float64]int, len(labels))
	for k, v := range labels {
		to[v] = k
	}
	count = make([]int, len(labels))
	for i, v := range y {
		k, ok := to[v]
		if !ok {
			continue
		}
		if n != i {
			if pix != nil {
				copy(pix[n*F:(n+1)*F], pix[i*F:(i+1)*F])
			} else {
				copy(x[n*F:(n+1)*F], x[i*F:(i+1)*F])
			}
		}
		y[n] = float64(k)
		kept = append(kept, i)
		count[k]++
		n++
	}
	return n, kept, count
}

// checkKept refuses a filter that kept no sample of the split name and,
// in a training split, a listed label that no sample has.
func checkKept(name string, labels []float64, count []int, n int, training bool) error {
	if n == 0 {
		return fmt.Errorf("%s: no sample has a label in labels = %s", name, labelText(labels))
	}
	if !training {
		return nil
	}
	for k, c := range count {
		if c == 0 {
			return fmt.Errorf("%s: labels = %s lists %g, which no training sample has (class %d would be empty)",
				name, labelText(labels), labels[k], k)
		}
	}
	return nil
}

// keepLabels filters the pooled rows with the labels list (see the
// function keepLabels); training says whether it is the training split.
func (p *pooled) keepLabels(labels []float64, training bool) error {
	if len(labels) == 0 {
		return nil
	}
	n, kept, count := keepLabels(labels, p.pix, p.x, p.y, p.features)
	if err := checkKept(p.name, labels, count, n, training); err != nil {
		return err
	}
	F := p.features
	if p.pix != nil {
		p.pix = p.pix[:n*F]
	} else {
		p.x = p.x[:n*F]
	}
	p.y = p.y[:n]
	if p.client != nil {
		for i, r := range kept {
			p.client[i] = p.client[r]
		}
		p.client = p.client[:n]
	}
	where := p.where
	p.where = func(i int) string { return where(kept[i]) }
	p.n = n
	return nil
}
