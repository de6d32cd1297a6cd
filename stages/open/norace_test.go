//go:build !race

package open

const raceEnabled = false
