package plan

import "github.com/fedlab/fedlab/registry"

// Data refuses a dataset whose declared memory (see DataBytes) is more
// than the ceiling, before it is generated.
func (l *Limits) Data(args registry.Args) error {
	need, what := DataBytes(args)
	if need == 0 {
		return nil
	}
	return l.budget.Check(args.Spec().Title()+" ("+what+")", need,
		"lower these parameters, or raise --max-memory if the machine has the memory")
}

// DataBytes is the memory a dataset built from a will hold, as its
// component declares it (registry.Sizer: a generator knows its own size),
// with the values that determine it named; 0 for a dataset that declares
// none (a file: its reader checks what it reads against the ceiling).
func DataBytes(a registry.Args) (uint64, string) {
	bytes, what, ok := a.Spec().Size(a)
	if !ok {
		return 0, ""
	}
	return bytes, what
}
