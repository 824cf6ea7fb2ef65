// Package allbutparquet links every component package but the Parquet
// reader (datasets/parquetdata), so that a binary that reads no Parquet
// file registers every other component without linking the Parquet
// library and its dependencies. registry/all is this and the Parquet
// reader. Import it for its side effects:
//
//	import _ "github.com/fedlab/fedlab/registry/allbutparquet"
package allbutparquet

import (
	_ "github.com/fedlab/fedlab/algorithms"
	_ "github.com/fedlab/fedlab/algorithms/serveropt"
	_ "github.com/fedlab/fedlab/datasets"
	_ "github.com/fedlab/fedlab/effects/availability"
	_ "github.com/fedlab/fedlab/effects/compress"
	_ "github.com/fedlab/fedlab/effects/privacy"
	_ "github.com/fedlab/fedlab/losses"
	_ "github.com/fedlab/fedlab/metrics"
	_ "github.com/fedlab/fedlab/regularizers"
	_ "github.com/fedlab/fedlab/schedules"
	_ "github.com/fedlab/fedlab/topology"
)
