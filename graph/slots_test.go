package graph

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestSpanCores runs several graphs at once on a 3-core scheduler, with stages of
// different appetites, and checks that every span names as many distinct core slots
// as it had workers, each in range, and that no slot is held by two spans at once.
func TestSpanCores(t *testing.T) {
	const cores = 3
	s := NewScheduler(cores)
	g := New()
	in := Input[int](g, "in")
	sleepy := func(name string, lo, hi int) Stage[int, int] {
		return Stage[int, int]{Name: name, MinWorkers: lo, MaxWorkers: hi, Run: func(_ context.Context, _ Workers, x int) (int, error) {
			time.Sleep(2 * time.Millisecond)
			return x + 1, nil
		}}
	}
	a := Then(g, sleepy("one", 1, 1), in)
	b := Then(g, sleepy("two", 2, 2), in)
	Then(g, Stage[Pair[int, int], int]{Name: "any", Run: func(_ context.Context, _ Workers, p Pair[int, int]) (int, error) {
		time.Sleep(2 * time.Millisecond)
		return p.A + p.B, nil
	}}, Join2(g, "ab", a, b))
	var (
		mu    sync.Mutex
		spans []Span
		wg    sync.WaitGroup
	)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := g.Run(context.Background(), s, Feed(in, i))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			spans = append(spans, res.Spans...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(spans) != 18 {
		t.Fatalf("want 18 spans, got %d", len(spans))
	}
	for _, sp := range spans {
		if len(sp.Cores) != sp.Workers {
			t.Fatalf("span %s: %d workers but cores %v", sp.Name, sp.Workers, sp.Cores)
		}
		seen := map[int]bool{}
		for _, c := range sp.Cores {
			if c < 0 || c >= cores || seen[c] {
				t.Fatalf("span %s: cores %v", sp.Name, sp.Cores)
			}
			seen[c] = true
		}
	}
	for i, x := range spans {
		for _, y := range spans[i+1:] {
			xEnd, yEnd := x.Start.Add(x.Duration), y.Start.Add(y.Duration)
			if !x.Start.Before(yEnd) || !y.Start.Before(xEnd) {
				continue // disjoint in time
			}
			for _, cx := range x.Cores {
				for _, cy := range y.Cores {
					if cx == cy {
						t.Fatalf("spans %s and %s overlap in time and both hold core %d", x.Name, y.Name, cx)
					}
				}
			}
		}
	}
}
