package luaapi

import (
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
)

// readSystem reads the system-effect keys of a call (availability,
// compress_up, compress_down, privacy; docs/realism.md).
func (in *interp) readSystem(f *fields, rounds int) plan.System {
	read := func(key string, kind registry.Kind) *plan.Component {
		c := f.component(key, kind)
		if c == nil {
			return nil
		}
		pc, err := in.planComponent(c, rounds)
		if err != nil {
			f.fail(err)
			return nil
		}
		return &pc
	}
	return plan.System{
		Availability: read("availability", registry.Availability),
		CompressUp:   read("compress_up", registry.Compressor),
		CompressDown: read("compress_down", registry.Compressor),
		Privacy:      read("privacy", registry.Privacy),
	}
}
