// Package all links every component package into a binary, so that their
// init functions register algorithms, losses, regularizers and mirror maps,
// datasets, metrics, schedules, topologies, server optimizers, availability
// models, compressors and privacy mechanisms. Import it for its side effects:
//
//	import _ "github.com/fedlab/fedlab/registry/all"
package all

import (
	_ "github.com/fedlab/fedlab/algorithms"
	_ "github.com/fedlab/fedlab/algorithms/serveropt"
	_ "github.com/fedlab/fedlab/datasets"
	_ "github.com/fedlab/fedlab/datasets/parquetdata"
	_ "github.com/fedlab/fedlab/effects/availability"
	_ "github.com/fedlab/fedlab/effects/compress"
	_ "github.com/fedlab/fedlab/effects/privacy"
	_ "github.com/fedlab/fedlab/losses"
	_ "github.com/fedlab/fedlab/metrics"
	_ "github.com/fedlab/fedlab/regularizers"
	_ "github.com/fedlab/fedlab/schedules"
	_ "github.com/fedlab/fedlab/topology"
)
