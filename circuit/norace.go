//go:build !race

package circuit

import "unsafe"

// raceReadWrite, raceRead and raceWrite report assembly's memory accesses to the
// race detector; without -race they do nothing.
func raceReadWrite(unsafe.Pointer, int) {}

func raceRead(unsafe.Pointer, int) {}

func raceWrite(unsafe.Pointer, int) {}
