// Package all links every component package into a binary, so that their
// init functions register algorithms, losses, regularizers and mirror maps,
// datasets, metrics, schedules, topologies, server optimizers, availability
// models, compressors and privacy mechanisms: registry/allbutparquet and
// the Parquet reader. Import it for its side effects:
//
//	import _ "github.com/fedlab/fedlab/registry/all"
package all

import (
	_ "github.com/fedlab/fedlab/datasets/parquetdata"
	_ "github.com/fedlab/fedlab/registry/allbutparquet"
)
