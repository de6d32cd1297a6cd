//go:build race

package flows

// raceEnabled is set when the tests run under the race detector, which slows the
// kernels too much for timing bounds.
const raceEnabled = true
