//go:build race

package keccak

const raceEnabled = true
