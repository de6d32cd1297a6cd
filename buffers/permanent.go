package buffers

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Permanent returns n zeroed elements of T in memory outside the Go heap that is
// never freed: for data a process keeps until it exits and streams through many
// times (a compiled circuit's program). Kept on the heap, such data would raise the
// collector's goal by its size, and every other allocation would then wait that
// much longer to be collected (a 2→1 merge's peak RSS rose by 220–380 MiB); it is
// mapped anonymous with Make's huge-page advice. T must hold no pointers (the
// collector does not scan the mapping); Permanent panics otherwise. On systems
// without anonymous mappings it is MakeUninit, cleared. Nothing may keep a slice of
// it after the process stops needing it: the memory is never returned.
func Permanent[T any](n int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if n < 0 || (size > 0 && n > maxBytes/size) {
		panic(fmt.Sprintf("buffers: Permanent of %d elements of %d bytes", n, size))
	}
	if !pointerFree(reflect.TypeFor[T]()) {
		panic(fmt.Sprintf("buffers: Permanent of %v, which holds pointers", reflect.TypeFor[T]()))
	}
	if n == 0 || size == 0 {
		return make([]T, n)
	}
	p := mapAnon(n * size)
	if p == nil {
		s := MakeUninit[T](n)
		clear(s)
		return s
	}
	s := unsafe.Slice((*T)(p), n)
	if hugeOn() && n*size >= HugeBytes {
		adviseHuge(p, n*size)
	}
	return s
}

// maxBytes bounds one Permanent mapping.
const maxBytes = 1 << 40
