//go:build race

package open

// raceEnabled is set under the race detector, whose sync.Pool drops items at random
// (the NTT plans' scratch lives in one), so warm-allocation bounds do not hold.
const raceEnabled = true
