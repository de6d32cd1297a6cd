package graph

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func square() Stage[int, int] {
	return Stage[int, int]{Name: "square", Run: func(_ context.Context, _ Workers, x int) (int, error) { return x * x, nil }}
}

func TestTypedChainAndJoin(t *testing.T) {
	g := New()
	in := Input[int](g, "in")
	sq := Then(g, square(), in)
	str := Then(g, Stage[int, string]{Name: "fmt", Run: func(_ context.Context, _ Workers, x int) (string, error) {
		return strings.Repeat("x", x), nil
	}}, in)
	j := Join2(g, "join", sq, str)
	out := Then(g, Stage[Pair[int, string], int]{Name: "sum", Run: func(_ context.Context, _ Workers, p Pair[int, string]) (int, error) {
		return p.A + len(p.B), nil
	}}, j)
	for _, x := range []int{0, 3, 7} {
		res, err := g.Run(context.Background(), NewScheduler(2), Feed(in, x))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Value(res, out)
		if !ok || got != x*x+x {
			t.Fatalf("x=%d: got %d, %v", x, got, ok)
		}
		if len(res.Spans) != 3 {
			t.Fatalf("want 3 stage spans, got %d", len(res.Spans))
		}
	}
}

func TestValidateErrors(t *testing.T) {
	g := New()
	s, _ := Slot[int](g, "loop")
	Then(g, square(), s)
	if err := g.Validate(); !errors.Is(err, ErrUnfed) {
		t.Fatalf("unfed slot: got %v", err)
	}

	g = New()
	in := Input[int](g, "in")
	s, feed := Slot[int](g, "twice")
	feed(in)
	feed(in)
	Then(g, square(), s)
	if err := g.Validate(); !errors.Is(err, ErrMultiFed) {
		t.Fatalf("twice-fed slot: got %v", err)
	}

	g = New()
	s, feed = Slot[int](g, "back")
	a := Then(g, square(), s)
	feed(a)
	if err := g.Validate(); !errors.Is(err, ErrCycle) {
		t.Fatalf("cycle: got %v", err)
	}

	g = New()
	in = Input[int](g, "in")
	Then(g, square(), in)
	if _, err := g.Run(context.Background(), nil); !errors.Is(err, ErrUnfed) {
		t.Fatalf("unbound input: got %v", err)
	}
}

// blocker waits until its context ends and counts how often it was cancelled.
func blocker(name string, cancelled *atomic.Int32) Stage[int, int] {
	return Stage[int, int]{Name: name, MaxWorkers: 1, Run: func(ctx context.Context, _ Workers, x int) (int, error) {
		select {
		case <-ctx.Done():
			cancelled.Add(1)
			return 0, ctx.Err()
		case <-time.After(10 * time.Second):
			return x, nil
		}
	}}
}

func TestErrorCancelsOthers(t *testing.T) {
	boom := errors.New("boom")
	var cancelled atomic.Int32
	g := New()
	in := Input[int](g, "in")
	Then(g, blocker("slow", &cancelled), in)
	bad := Then(g, Stage[int, int]{Name: "bad", MaxWorkers: 1, Run: func(context.Context, Workers, int) (int, error) {
		time.Sleep(10 * time.Millisecond)
		return 0, boom
	}}, in)
	after := Then(g, square(), bad)
	start := time.Now()
	res, err := g.Run(context.Background(), NewScheduler(2), Feed(in, 1))
	var se *StageError
	if !errors.As(err, &se) || se.Stage != "bad" || !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > 5*time.Second || cancelled.Load() != 1 {
		t.Fatalf("slow stage was not cancelled (cancelled=%d)", cancelled.Load())
	}
	if _, ok := Value(res, after); ok {
		t.Fatal("a stage downstream of the failure ran")
	}
}

func TestPanicInStageAndWorker(t *testing.T) {
	for _, inWorker := range []bool{false, true} {
		g := New()
		in := Input[int](g, "in")
		Then(g, Stage[int, int]{Name: "panicky", MinWorkers: 2, MaxWorkers: 2, Run: func(_ context.Context, w Workers, x int) (int, error) {
			if !inWorker {
				panic("stage panic")
			}
			w.Run(func(i int) {
				if i == 1 {
					var m map[int]int
					m[0] = 1 // nil map write: a runtime panic in a worker's chunk
				}
			})
			return x, nil // the recorded panic fails the stage all the same
		}}, in)
		_, err := g.Run(context.Background(), NewScheduler(2), Feed(in, 1))
		var pe *PanicError
		var se *StageError
		if !errors.As(err, &pe) || !errors.As(err, &se) || se.Stage != "panicky" {
			t.Fatalf("inWorker=%v: got %v", inWorker, err)
		}
	}
}

func TestSchedulerGrantsUnderContention(t *testing.T) {
	s := NewScheduler(4)
	ctx := context.Background()
	a, _ := s.Acquire(ctx, 1, 3)
	if a != 3 {
		t.Fatalf("first grant %d, want 3", a)
	}
	b, _ := s.Acquire(ctx, 1, 4)
	if b != 1 {
		t.Fatalf("second grant %d, want the 1 left", b)
	}
	done := make(chan int)
	go func() {
		c, _ := s.Acquire(ctx, 2, 2)
		done <- c
	}()
	select {
	case <-done:
		t.Fatal("grant beyond capacity")
	case <-time.After(50 * time.Millisecond):
	}
	s.Release(a)
	if c := <-done; c != 2 {
		t.Fatalf("waiting grant %d, want 2", c)
	}
	if s.Peak() > 4 {
		t.Fatalf("peak %d over capacity", s.Peak())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Acquire(cctx, 4, 4); err == nil {
		t.Fatal("acquire on a cancelled context succeeded")
	}
}

func TestGrantsRecordedAndBounded(t *testing.T) {
	var running, peak atomic.Int32
	g := New()
	in := Input[int](g, "in")
	for _, name := range []string{"a", "b", "c", "d"} {
		Then(g, Stage[int, int]{Name: name, MinWorkers: 1, MaxWorkers: 2, Run: func(_ context.Context, w Workers, x int) (int, error) {
			n := running.Add(int32(w.N()))
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			running.Add(-int32(w.N()))
			return x, nil
		}}, in)
	}
	res, err := g.Run(context.Background(), NewScheduler(3), Feed(in, 1))
	if err != nil {
		t.Fatal(err)
	}
	if peak.Load() > 3 {
		t.Fatalf("%d workers ran at once on 3 cores", peak.Load())
	}
	for _, sp := range res.Spans {
		if sp.Workers < 1 || sp.Workers > 2 {
			t.Fatalf("span %s granted %d workers", sp.Name, sp.Workers)
		}
	}
}

func TestUnconsumedAfterFailure(t *testing.T) {
	g := New()
	in := Input[int](g, "in")
	a := Then(g, Stage[int, string]{Name: "a", Run: func(context.Context, Workers, int) (string, error) { return "held", nil }}, in)
	Then(g, Stage[string, int]{Name: "b", Run: func(context.Context, Workers, string) (int, error) { return 0, errors.New("fail") }}, a)
	res, err := g.Run(context.Background(), NewScheduler(1), Feed(in, 1))
	if err == nil {
		t.Fatal("want an error")
	}
	if u := res.Unconsumed(); len(u) != 1 || u[0] != "held" {
		t.Fatalf("unconsumed %v", u)
	}
}

func TestLift(t *testing.T) {
	inner := Stage[int, int]{Name: "double", MinWorkers: 1, MaxWorkers: 3, Run: func(_ context.Context, _ Workers, x int) (int, error) {
		if x < 0 {
			return 0, errors.New("negative")
		}
		return 2 * x, nil
	}}
	type state struct{ x, y int }
	var failures []error
	lifted := Lift(inner,
		func(_ context.Context, s state) (int, error) {
			if s.x == 7 {
				return 0, errors.New("seven")
			}
			return s.x, nil
		},
		func(s state, _ int, y int, err error) (state, error) {
			if err != nil {
				failures = append(failures, err)
				return state{}, err
			}
			return state{s.x, y}, nil
		})
	if lifted.Name != "double" || lifted.MinWorkers != 1 || lifted.MaxWorkers != 3 {
		t.Fatalf("lifted stage lost its name or bounds: %+v", lifted)
	}
	w := NewWorkers(context.Background(), 1)
	if got, err := lifted.Run(context.Background(), w, state{x: 5}); err != nil || got != (state{5, 10}) {
		t.Fatalf("lifted(5) = %v, %v", got, err)
	}
	for _, x := range []int{-1, 7} {
		if _, err := lifted.Run(context.Background(), w, state{x: x}); err == nil {
			t.Fatalf("lifted(%d) did not fail", x)
		}
	}
	if len(failures) != 2 {
		t.Fatalf("out saw %d failures, want 2", len(failures))
	}
}

func TestWithStageStart(t *testing.T) {
	var mu sync.Mutex
	var started []string
	ctx := WithStageStart(context.Background(), func(s string) {
		mu.Lock()
		started = append(started, s)
		mu.Unlock()
	})
	c := Append(Begin(square()), Stage[int, int]{Name: "inc", Run: func(_ context.Context, _ Workers, x int) (int, error) { return x + 1, nil }})
	if _, _, _, err := c.Run(ctx, NewWorkers(ctx, 1), 3); err != nil {
		t.Fatal(err)
	}
	g := New()
	in := Input[int](g, "x")
	Wire(g, c, in)
	if _, err := g.Run(ctx, NewScheduler(2), Feed(in, 2)); err != nil {
		t.Fatal(err)
	}
	if strings.Join(started, ",") != "square,inc,square,inc" {
		t.Fatalf("stages started: %v", started)
	}
}
