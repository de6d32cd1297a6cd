//go:build race

package aggregate

// raceEnabled is set when the tests run under the race detector, whose shadow
// memory is not the prover's.
const raceEnabled = true
