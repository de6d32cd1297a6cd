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
