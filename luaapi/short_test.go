package luaapi

import (
	"testing"
	"time"
)

// testCeiling is the memory ceiling of the tests that run a script into
// it: 64 MiB, or 16 MiB under -short (the strings and tables that pass it
// made a quarter as large).
func testCeiling() uint64 {
	if testing.Short() {
		return 16 << 20
	}
	return 64 << 20
}

// testLimit is the time limit of a test whose script would run on for
// seconds: full, or 50 ms under -short. A limit that ends before the
// script begins stops it at its first line, with the same message.
func testLimit(full time.Duration) time.Duration {
	if testing.Short() {
		return 50 * time.Millisecond
	}
	return full
}
