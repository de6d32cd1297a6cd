//go:build race

package circuit

import (
	"runtime"
	"unsafe"
)

// raceReadWrite tells the race detector that assembly reads and writes the n
// bytes at p (it cannot see them otherwise).
func raceReadWrite(p unsafe.Pointer, n int) {
	runtime.RaceReadRange(p, n)
	runtime.RaceWriteRange(p, n)
}

// raceRead tells the race detector that assembly reads the n bytes at p.
func raceRead(p unsafe.Pointer, n int) { runtime.RaceReadRange(p, n) }

// raceWrite tells the race detector that assembly writes the n bytes at p.
func raceWrite(p unsafe.Pointer, n int) { runtime.RaceWriteRange(p, n) }
