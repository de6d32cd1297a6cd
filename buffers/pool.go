package buffers

import (
	"fmt"
	"math/bits"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Align is the byte alignment of every buffer's first element.
const Align = 64

// Pool hands out aligned buffers of T by power-of-two size class. Safe for concurrent use.
type Pool[T any] struct {
	mu    sync.Mutex
	free  map[int][]*Buf[T]
	limit int // per class, free buffers kept
	stats Stats
}

// Stats counts what a pool has done.
type Stats struct {
	Gets       int64 // buffers handed out
	Reused     int64 // of which came from the free lists
	Allocated  int64 // fresh allocations
	BytesAlloc int64 // bytes of fresh allocations
	Returned   int64 // buffers returned by their last Release
}

// NewPool returns an empty pool keeping at most keep free buffers per size class
// (keep ≤ 0 means 8).
func NewPool[T any](keep int) *Pool[T] {
	if keep <= 0 {
		keep = 8
	}
	return &Pool[T]{free: map[int][]*Buf[T]{}, limit: keep}
}

// Buf is a pooled, aligned slice with a reference count.
type Buf[T any] struct {
	pool  *Pool[T]
	full  []T // the aligned class-sized slice
	n     int
	class int
	refs  atomic.Int32
}

func classOf(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// Get returns a buffer of n elements with one reference held by the caller. Its
// contents are unspecified (it may be reused); use GetZeroed for zeros.
func (p *Pool[T]) Get(n int) *Buf[T] {
	if n < 0 {
		panic(fmt.Sprintf("buffers: negative length %d", n))
	}
	c := classOf(n)
	p.mu.Lock()
	p.stats.Gets++
	var b *Buf[T]
	if l := p.free[c]; len(l) > 0 {
		b = l[len(l)-1]
		p.free[c] = l[:len(l)-1]
		p.stats.Reused++
	}
	p.mu.Unlock()
	if b == nil {
		b = &Buf[T]{pool: p, class: c, full: alignedSlice[T](1 << c)}
		p.mu.Lock()
		p.stats.Allocated++
		p.stats.BytesAlloc += int64(1<<c) * int64(unsafe.Sizeof(*new(T)))
		p.mu.Unlock()
	}
	b.n = n
	b.refs.Store(1)
	return b
}

// GetZeroed is Get with the n elements cleared.
func (p *Pool[T]) GetZeroed(n int) *Buf[T] {
	b := p.Get(n)
	clear(b.full[:n])
	return b
}

// Stats returns a snapshot of the pool's counters.
func (p *Pool[T]) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

func (p *Pool[T]) put(b *Buf[T]) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Returned++
	if len(p.free[b.class]) < p.limit {
		p.free[b.class] = append(p.free[b.class], b)
	}
}

// alignedSlice allocates n elements of T whose first element is Align-byte aligned.
func alignedSlice[T any](n int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if size == 0 || n == 0 {
		return make([]T, n)
	}
	slack := Align // enough elements to reach an aligned address for any size
	var raw []T
	if pointerFree(reflect.TypeFor[T]()) {
		raw = MakeUninit[T](n + slack) // Get promises no contents
	} else {
		raw = Make[T](n + slack)
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	for off := 0; off <= slack; off++ {
		if (base+uintptr(off*size))%Align == 0 {
			return raw[off : off+n : off+n]
		}
	}
	panic("buffers: cannot align element size " + fmt.Sprint(size))
}

// Data returns the buffer's n elements. It panics if the buffer was released.
func (b *Buf[T]) Data() []T {
	if b.refs.Load() <= 0 {
		panic("buffers: use of a released buffer")
	}
	return b.full[:b.n]
}

// Len is the buffer's length.
func (b *Buf[T]) Len() int { return b.n }

// SizeBytes is the buffer's length in bytes (for spans).
func (b *Buf[T]) SizeBytes() int64 { return int64(b.n) * int64(unsafe.Sizeof(*new(T))) }

// Retain adds k references: the hand-off of ownership to k more readers.
func (b *Buf[T]) Retain(k int) {
	for {
		r := b.refs.Load()
		if r <= 0 {
			panic("buffers: retain of a released buffer")
		}
		if b.refs.CompareAndSwap(r, r+int32(k)) {
			return
		}
	}
}

// Release drops one reference; the last one returns the buffer to its pool.
func (b *Buf[T]) Release() {
	for {
		r := b.refs.Load()
		if r <= 0 {
			panic("buffers: release of a released buffer")
		}
		if b.refs.CompareAndSwap(r, r-1) {
			if r == 1 {
				b.pool.put(b)
			}
			return
		}
	}
}

// Refs is the number of references currently held.
func (b *Buf[T]) Refs() int { return int(b.refs.Load()) }

// View returns b's elements reinterpreted as elements of U: the same memory, as
// many whole U as b's n elements of T span (a producer can then hand one buffer to
// consumers of different element types in turn, e.g. two K vectors that later
// become one E vector). T and U must hold no pointers, and U's alignment must not
// exceed Align; View panics otherwise. The view is valid while b is held, like Data.
func View[U, T any](b *Buf[T]) []U {
	tt, ut := reflect.TypeFor[T](), reflect.TypeFor[U]()
	if !pointerFree(tt) || !pointerFree(ut) || ut.Size() == 0 || ut.Align() > Align {
		panic(fmt.Sprintf("buffers: cannot view %v as %v", tt, ut))
	}
	d := b.Data()
	n := uintptr(len(d)) * tt.Size() / ut.Size()
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(d))), n)
}

// pointerFree reports whether values of t hold no pointers.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
