package losses

import "github.com/fedlab/fedlab/core"

// The networks tell the engine when they compute in float32, so that a run
// they overflow says so (core.Float32Arithmetic).
var (
	_ core.Float32Arithmetic = MLP{}
	_ core.Float32Arithmetic = CNN{}
)

// Float32Arithmetic reports whether the network computes its passes in
// float32 (precision = "float32"; core.Float32Arithmetic).
func (m MLP) Float32Arithmetic() bool { return m.Float32 }

// Float32Arithmetic reports whether the network computes its passes in
// float32 (precision = "float32"; core.Float32Arithmetic).
func (c CNN) Float32Arithmetic() bool { return c.Float32 }
