package losses

// Float32Arithmetic reports whether the network computes its passes in
// float32 (precision = "float32"; core.Float32Arithmetic).
func (m MLP) Float32Arithmetic() bool { return m.Float32 }

// Float32Arithmetic reports whether the network computes its passes in
// float32 (precision = "float32"; core.Float32Arithmetic).
func (c CNN) Float32Arithmetic() bool { return c.Float32 }
