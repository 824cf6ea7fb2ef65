package datasets

import "github.com/fedlab/fedlab/datasets/datasetstest"

// The test helpers every reader's tests share (datasets/datasetstest), under
// the names these tests use.
type table = datasetstest.Table

var (
	byteTable           = datasetstest.ByteTable
	sameFederated       = datasetstest.SameFederated
	partitionCases      = datasetstest.PartitionCases
	naturalKeepsWriters = datasetstest.NaturalKeepsWriters
	rowOf               = datasetstest.RowOf
	merged              = datasetstest.Merged
	build               = datasetstest.Build
	buildErr            = datasetstest.BuildErr
	buildNoting         = datasetstest.BuildNoting
	mustValidate        = datasetstest.MustValidate
	cleanMessage        = datasetstest.CleanMessage
	within              = datasetstest.Within
)
