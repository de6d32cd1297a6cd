package buffers

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// Go zeroes every allocation, and a large one that reuses heap memory a proof has
// let go of is cleared by the allocating goroutine alone, at memory speed, before it
// returns: in a prover that runs proof after proof, a CPU profile put that clearing
// at 1.14 s of five 2→1 merges' 6.13 s (docs/recursion.md §6.22). A buffer its user
// writes in full before reading it needs none of it.

// uninitMin is the smallest allocation MakeUninit leaves uncleared (in bytes): below
// it the clearing is cheap and make is used.
const uninitMin = 64 << 10

// mallocgc is the Go runtime's allocator (the runtime keeps the symbol available to
// linkname for packages outside the standard library). With a nil type the memory is
// never scanned, and with needzero false a recycled span keeps its old bytes.
//
//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// MakeUninit returns a new slice of n elements of T whose contents are unspecified
// (they may be any bytes the heap held before): Make without the clearing, for a
// buffer its user writes in full before reading any of it. Large ones get Make's
// huge-page advice. T must hold no pointers (MakeUninit panics otherwise: the
// collector would follow garbage); n < 0 panics as make does.
func MakeUninit[T any](n int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if n < 0 {
		panic(fmt.Sprintf("buffers: MakeUninit of %d elements", n))
	}
	if !pointerFree(reflect.TypeFor[T]()) {
		panic(fmt.Sprintf("buffers: MakeUninit of %v, which holds pointers", reflect.TypeFor[T]()))
	}
	var s []T
	switch {
	case size == 0 || n*size < uninitMin:
		s = Make[T](n)
	case n > maxAlloc/size:
		panic(fmt.Sprintf("buffers: MakeUninit of %d elements of %d bytes", n, size))
	default:
		s = unsafe.Slice((*T)(mallocgc(uintptr(n*size), nil, false)), n)
		advise(s)
	}
	if p := poison.Load(); p != 0 && n > 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n*size)
		for i := range b {
			b[i] = byte(p)
		}
	}
	return s
}

// poison is 0, or 256 + the byte MakeUninit fills its slices with (Poison).
var poison atomic.Int32

// Poison makes MakeUninit fill every slice it returns (small ones too) with the byte p,
// until restore is called: a test's check that a buffer's user writes it in full
// before reading it (recycled memory would otherwise often hold zeros by luck). It
// applies to the whole process, where it changes nothing for code that is correct.
func Poison(p byte) (restore func()) {
	old := poison.Swap(int32(p) | 0x100)
	return func() { poison.Store(old) }
}

// GrowUninit is Grow allocating with MakeUninit: s with length n, its array reused
// when the capacity suffices; the contents are unspecified either way.
func GrowUninit[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return MakeUninit[T](n)
}

// maxAlloc bounds one allocation (the runtime's own limit on amd64 is far above any
// proof's buffer; this keeps n·size from overflowing).
const maxAlloc = 1 << 46
