//go:build !race

package keccak

const raceEnabled = false
