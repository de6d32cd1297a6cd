package par

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestForCoversOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 64, 1000, 4097} {
		for _, k := range []int{1, 2, 3, 8} {
			for _, o := range [][]Option{nil, {Grain(64)}, {MinChunk(100)}, {PerWorker(1)}, {Grain(8), MinChunk(30), PerWorker(16)}} {
				seen := make([]int32, n)
				var maxWorker atomic.Int32
				New(context.Background(), k).For(n, func(worker, lo, hi int) {
					if worker >= k || lo >= hi {
						t.Errorf("n=%d k=%d: worker %d chunk [%d,%d)", n, k, worker, lo, hi)
					}
					if worker > int(maxWorker.Load()) {
						maxWorker.Store(int32(worker))
					}
					g := opts{grain: 1}
					for _, f := range o {
						f(&g)
					}
					if lo%g.grain != 0 || (hi%g.grain != 0 && hi != n) {
						t.Errorf("n=%d grain %d: chunk [%d,%d) off the grain", n, g.grain, lo, hi)
					}
					for i := lo; i < hi; i++ {
						atomic.AddInt32(&seen[i], 1)
					}
				}, o...)
				for i, c := range seen {
					if c != 1 {
						t.Fatalf("n=%d k=%d: index %d visited %d times", n, k, i, c)
					}
				}
			}
		}
	}
}

func TestMinChunkLimitsWorkers(t *testing.T) {
	w := New(context.Background(), 8)
	if c := w.Chunks(100, MinChunk(60)); c != 1 {
		t.Fatalf("100 items with min chunk 60: %d chunks, want 1", c)
	}
	if c := w.Chunks(1000, MinChunk(100), PerWorker(1)); c != 8 {
		t.Fatalf("1000 items, 8 workers, one chunk each: %d chunks", c)
	}
}

func TestSumIndependentOfWorkers(t *testing.T) {
	// A non-commutative add (concatenation) shows the chunk order is kept.
	add := func(a, b []int) []int { return append(append([]int(nil), a...), b...) }
	for _, k := range []int{1, 2, 3, 7} {
		got := Sum(New(context.Background(), k), 1000, add, func(lo, hi int) []int {
			out := make([]int, 0, hi-lo)
			for i := lo; i < hi; i++ {
				out = append(out, i)
			}
			return out
		}, Grain(3))
		if len(got) != 1000 {
			t.Fatalf("k=%d: %d items", k, len(got))
		}
		for i, v := range got {
			if v != i {
				t.Fatalf("k=%d: item %d is %d", k, i, v)
			}
		}
	}
}

func TestPanicInWorkerIsRecorded(t *testing.T) {
	for _, k := range []int{1, 2, 4} {
		w := New(context.Background(), k)
		var after atomic.Int32
		w.For(1<<12, func(_, lo, _ int) {
			if lo == 0 {
				var m map[int]int
				m[0] = 1 // a runtime panic in one chunk
			}
			after.Add(1)
		}, PerWorker(64))
		var pe *PanicError
		if !errors.As(w.Err(), &pe) || len(pe.Stack) == 0 {
			t.Fatalf("k=%d: Err() = %v, want a *PanicError with a stack", k, w.Err())
		}
		if !w.Stopped() {
			t.Fatal("not stopped after a panic")
		}
		// Later ranges (and copies limited from w) run nothing.
		ran := false
		w.Limit(1).Range(10, func(int, int) { ran = true })
		if ran {
			t.Fatal("a chunk ran after the failure")
		}
	}
}

func TestCancelStopsBetweenChunks(t *testing.T) {
	for _, k := range []int{1, 2, 4} {
		ctx, cancel := context.WithCancelCause(context.Background())
		why := errors.New("shutdown")
		w := New(ctx, k)
		var chunks, late atomic.Int32
		var cancelled atomic.Bool
		w.Range(1000, func(lo, hi int) {
			if cancelled.Load() {
				late.Add(1)
			}
			if chunks.Add(1) == 3 {
				cancel(why)
				cancelled.Store(true)
			}
		}, PerWorker(1000/k))
		// Once cancel has returned, only the chunks other workers had already taken
		// (at most one each) may start; the canceller takes no more.
		if n := late.Load(); n > int32(k-1) {
			t.Fatalf("k=%d: %d chunks started after cancellation returned (of %d run)", k, n, chunks.Load())
		}
		if !errors.Is(w.Err(), why) {
			t.Fatalf("k=%d: Err() = %v, want the context's cause", k, w.Err())
		}
	}
}

func TestChunkHook(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "stage-x")
	restore := SetChunkHook(func(ctx context.Context) {
		if ctx.Value(key{}) == "stage-x" {
			panic("injected")
		}
	})
	defer restore()
	w := New(ctx, 2)
	w.Range(100, func(int, int) {})
	var pe *PanicError
	if !errors.As(w.Err(), &pe) || pe.Value != "injected" {
		t.Fatalf("Err() = %v", w.Err())
	}
	other := New(context.Background(), 2)
	other.Range(100, func(int, int) {})
	if other.Err() != nil {
		t.Fatalf("hook fired outside its context: %v", other.Err())
	}
}

func TestZeroValue(t *testing.T) {
	var w Workers
	if w.N() != 1 || w.Err() != nil || w.Stopped() {
		t.Fatal("zero Workers is not one idle worker")
	}
	n := 0
	w.Range(10, func(lo, hi int) { n += hi - lo })
	if n != 10 {
		t.Fatalf("covered %d of 10", n)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a panic with no failure record was swallowed")
		}
	}()
	w.Range(1, func(int, int) { panic("boom") })
}

// Clear zeroes the slice it is given on any number of workers and nothing past it.
func TestClear(t *testing.T) {
	for _, n := range []int{1, 3} {
		v := make([]uint64, 10000)
		for i := range v {
			v[i] = uint64(i) + 1
		}
		Clear(New(nil, n), v[:9000], MinChunk(100))
		for i, x := range v {
			if want := uint64(0); i >= 9000 {
				want = uint64(i) + 1
				if x != want {
					t.Fatalf("%d workers: word %d past the slice = %d, want %d", n, i, x, want)
				}
			} else if x != want {
				t.Fatalf("%d workers: word %d = %d, want 0", n, i, x)
			}
		}
	}
}

// ForAll visits every item of every loop once, with For's chunks, on at most N()
// workers; one worker runs the loops in order.
func TestForAllCoversOnce(t *testing.T) {
	sizes := []int{5, 0, 1000, 1, 4097}
	options := [][]Option{{PerWorker(1)}, nil, {Grain(64)}, nil, {Grain(8), MinChunk(30), PerWorker(16)}}
	for _, k := range []int{1, 2, 3, 8} {
		w := New(context.Background(), k)
		seen := make([][]int32, len(sizes))
		loops := make([]Loop, len(sizes))
		var order []int // loop of each chunk run, at one worker
		for i, n := range sizes {
			seen[i] = make([]int32, n)
			loops[i] = Loop{N: n, Opts: options[i], Fn: func(worker, lo, hi int) {
				if worker >= k || lo >= hi {
					t.Errorf("k=%d loop %d: worker %d chunk [%d,%d)", k, i, worker, lo, hi)
				}
				if k == 1 {
					order = append(order, i)
				}
				for j := lo; j < hi; j++ {
					atomic.AddInt32(&seen[i][j], 1)
				}
			}}
		}
		w.ForAll(loops...)
		for i := range seen {
			for j, c := range seen[i] {
				if c != 1 {
					t.Fatalf("k=%d loop %d: index %d visited %d times", k, i, j, c)
				}
			}
			if n := sizes[i]; n > 0 {
				var chunks atomic.Int32
				w.For(n, func(_, _, _ int) { chunks.Add(1) }, options[i]...)
				var got atomic.Int32
				w.ForAll(Loop{N: n, Opts: options[i], Fn: func(_, _, _ int) { got.Add(1) }})
				if got.Load() != chunks.Load() {
					t.Fatalf("k=%d loop %d: %d chunks, For cuts %d", k, i, got.Load(), chunks.Load())
				}
			}
		}
		for j := 1; j < len(order); j++ {
			if order[j] < order[j-1] {
				t.Fatalf("one worker ran the loops out of order: %v", order)
			}
		}
	}
	New(nil, 2).ForAll() // no loops: nothing to run
}

// A worker that finds the first loop's chunks all taken goes on with the next loop
// while another worker still runs a chunk of the first: here the first loop's only
// chunk waits until the second loop is done, which it never would if the second
// loop waited for the first.
func TestForAllFillsIdleWorkers(t *testing.T) {
	done := make(chan struct{})
	var left atomic.Int32
	left.Store(40)
	New(context.Background(), 2).ForAll(
		Loop{N: 1, Fn: func(_, _, _ int) {
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Error("the second loop did not run while the first loop's chunk waited")
			}
		}},
		Loop{N: 40, Opts: []Option{MinChunk(1), PerWorker(20)}, Fn: func(_, lo, hi int) {
			if left.Add(int32(lo-hi)) == 0 {
				close(done)
			}
		}},
	)
}

// A panic in a loop's chunk is recorded and stops the chunks not yet run, those of
// the later loops too.
func TestForAllPanicIsRecorded(t *testing.T) {
	w := New(context.Background(), 1)
	var after atomic.Int32
	w.ForAll(
		Loop{N: 1, Fn: func(_, _, _ int) { panic("boom") }},
		Loop{N: 1000, Opts: []Option{PerWorker(100)}, Fn: func(_, _, _ int) { after.Add(1) }},
	)
	var pe *PanicError
	if err := w.Err(); !errors.As(err, &pe) || pe.Value != "boom" {
		t.Fatalf("Err() = %v, want the panic", err)
	}
	if after.Load() != 0 {
		t.Fatalf("%d chunks of the next loop ran after the panic", after.Load())
	}
}
