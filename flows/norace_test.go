//go:build !race

package flows

const raceEnabled = false
