package plan

import (
	"fmt"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/registry"
)

// System chooses the system effects of a comparison or sweep
// (docs/realism.md): client availability (kind "availability"), uplink and
// downlink compressors (kind "compressor") and client-level differential
// privacy (kind "privacy"). Nil means absent.
type System struct {
	Availability, CompressUp, CompressDown, Privacy *Component
}

// baseWith is base with the system effects sys built into the settings and
// their identities recorded.
func (b *Builder) baseWith(p Problem, s core.Settings, metrics []Component, sys System) (experiment.Base, error) {
	var ids experiment.System
	parts := []struct {
		c    *Component
		kind registry.Kind
		set  func(v any)
		id   **experiment.Component
	}{
		{sys.Availability, registry.Availability, func(v any) { s.Availability = v.(core.Availability) }, &ids.Availability},
		{sys.CompressUp, registry.Compressor, func(v any) { s.CompressUp = v.(core.Compressor) }, &ids.CompressUp},
		{sys.CompressDown, registry.Compressor, func(v any) { s.CompressDown = v.(core.Compressor) }, &ids.CompressDown},
		{sys.Privacy, registry.Privacy, func(v any) { s.Privacy = v.(core.Privacy) }, &ids.Privacy},
	}
	for _, part := range parts {
		if part.c == nil {
			continue
		}
		v, id, err := build[any](b, *part.c, part.kind)
		if err != nil {
			return experiment.Base{}, err
		}
		part.set(v)
		*part.id = &id
	}
	base, err := b.base(p, s, metrics)
	base.System = ids
	return base, err
}

// checkEffects refuses, before anything runs, system effects of base that
// the algorithm args builds does not declare it handles.
func checkEffects(base experiment.Base, args registry.Args) error {
	s := &base.Settings
	if s.Availability == nil && s.CompressUp == nil && s.CompressDown == nil && s.Privacy == nil {
		return nil
	}
	if err := core.CheckCompressors(s, base.Problem.Dim()); err != nil {
		return err
	}
	if s.Privacy != nil && base.Problem.WeightBySamples {
		return fmt.Errorf("client-level DP needs equal client weights (the sensitivity of the mean is clip/n); remove weighted = true from the problem")
	}
	alg, err := registry.BuildArgs[core.Algorithm](args)
	if err != nil {
		return err
	}
	return core.CheckEffects(args.Spec().Name, alg, s)
}
