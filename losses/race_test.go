//go:build race

package losses_test

// raceEnabled: the race detector is on (slow tests skip).
const raceEnabled = true
