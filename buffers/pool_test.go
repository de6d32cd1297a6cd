package buffers

import (
	"sync"
	"testing"
	"unsafe"
)

type e3 struct{ a, b, c uint64 }

func TestAlignment(t *testing.T) {
	pk := NewPool[uint64](0)
	pe := NewPool[e3](0)
	pb := NewPool[byte](0)
	for _, n := range []int{1, 3, 64, 1000, 1 << 15} {
		for _, p := range []uintptr{
			uintptr(unsafe.Pointer(&pk.Get(n).Data()[0])),
			uintptr(unsafe.Pointer(&pe.Get(n).Data()[0])),
			uintptr(unsafe.Pointer(&pb.Get(n).Data()[0])),
		} {
			if p%Align != 0 {
				t.Fatalf("n=%d: address %#x not %d-aligned", n, p, Align)
			}
		}
	}
}

func TestReuseAfterRelease(t *testing.T) {
	p := NewPool[uint64](0)
	b := p.GetZeroed(1000)
	first := &b.Data()[0]
	b.Release()
	c := p.Get(900) // same class (1024)
	if &c.Data()[0] != first || p.Stats().Reused != 1 || p.Stats().Allocated != 1 {
		t.Fatalf("buffer not reused: %+v", p.Stats())
	}
	if len(c.Data()) != 900 {
		t.Fatalf("len %d", len(c.Data()))
	}
	z := p.GetZeroed(5)
	for _, v := range z.Data() {
		if v != 0 {
			t.Fatal("GetZeroed returned non-zero data")
		}
	}
}

func TestUseAfterReleasePanics(t *testing.T) {
	p := NewPool[uint64](0)
	b := p.Get(8)
	b.Release()
	for name, f := range map[string]func(){"data": func() { b.Data() }, "release": b.Release, "retain": func() { b.Retain(1) }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s after release did not panic", name)
				}
			}()
			f()
		}()
	}
}

// TestHandOffNeverReturnsWhileRead hands one buffer to many concurrent readers; the
// buffer must stay out of the pool until the last reader releases it. Run with -race.
func TestHandOffNeverReturnsWhileRead(t *testing.T) {
	p := NewPool[uint64](0)
	for round := 0; round < 50; round++ {
		b := p.Get(4096)
		d := b.Data()
		for i := range d {
			d[i] = uint64(round)
		}
		const readers = 8
		b.Retain(readers)
		b.Release() // the producer hands off
		var wg sync.WaitGroup
		for r := 0; r < readers; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer b.Release()
				for _, v := range b.Data() {
					if v != uint64(round) {
						t.Errorf("reader saw %d in round %d", v, round)
						return
					}
				}
			}()
		}
		wg.Wait()
		if b.Refs() != 0 {
			t.Fatalf("refs %d after all readers", b.Refs())
		}
	}
	st := p.Stats()
	if st.Allocated != 1 || st.Returned != 50 {
		t.Fatalf("stats %+v", st)
	}
}

// View shares the buffer's memory under another element type: writes through one
// are seen through the other, the length is the whole elements the buffer spans,
// and pointerful types are refused.
func TestView(t *testing.T) {
	pe := NewPool[e3](0)
	b := pe.Get(10)
	words := View[uint64](b)
	if len(words) != 30 || &words[0] != &b.Data()[0].a {
		t.Fatalf("view of 10 e3: %d words at %p, buffer at %p", len(words), &words[0], &b.Data()[0])
	}
	for i := range words {
		words[i] = uint64(i)
	}
	if got := b.Data()[3]; got != (e3{9, 10, 11}) {
		t.Fatalf("element 3 reads %v after writing words", got)
	}
	pk := NewPool[uint64](0)
	k := pk.Get(7)
	if es := View[e3](k); len(es) != 2 {
		t.Fatalf("7 words as e3: %d elements, want 2", len(es))
	}
	if bs := View[byte](k); len(bs) != 56 {
		t.Fatalf("7 words as bytes: %d", len(bs))
	}
	for name, f := range map[string]func(){
		"pointer target":   func() { View[*int](k) },
		"pointer source":   func() { View[uint64](NewPool[[]int](0).Get(4)) },
		"struct of string": func() { View[struct{ s string }](k) },
		"released":         func() { c := pk.Get(2); c.Release(); View[byte](c) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: View did not panic", name)
				}
			}()
			f()
		}()
	}
}
