//go:build !race

package cli

// raceEnabled: the race detector is on (tests that only repeat work done
// elsewhere under it skip).
const raceEnabled = false
