package luaapi

import (
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/registry"
)

// readSystem reads the system-effect keys of a call (availability,
// compress_up, compress_down, privacy), builds them into s and returns
// their identities.
func (in *interp) readSystem(f *fields, s *core.Settings) experiment.System {
	var id experiment.System
	read := func(key string, kind registry.Kind, set func(v any), ident **experiment.Component) {
		c := f.component(key, kind)
		if c == nil {
			return
		}
		v, err := build[any](in, c, 0)
		if err != nil {
			f.fail(err)
			return
		}
		cid, err := in.componentID(c, 0)
		if err != nil {
			f.fail(err)
			return
		}
		set(v)
		*ident = &cid
	}
	read("availability", registry.Availability, func(v any) { s.Availability = v.(core.Availability) }, &id.Availability)
	read("compress_up", registry.Compressor, func(v any) { s.CompressUp = v.(core.Compressor) }, &id.CompressUp)
	read("compress_down", registry.Compressor, func(v any) { s.CompressDown = v.(core.Compressor) }, &id.CompressDown)
	read("privacy", registry.Privacy, func(v any) { s.Privacy = v.(core.Privacy) }, &id.Privacy)
	return id
}
