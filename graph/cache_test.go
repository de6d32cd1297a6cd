package graph

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestShapeCacheBuildsOnceAndCounts(t *testing.T) {
	c, err := NewShapeCache(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var builds atomic.Int32
	build := func() ([]int, error) {
		builds.Add(1)
		return []int{1, 2, 3}, nil
	}
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := Shape(context.Background(), c, "k", 24, build)
			if err != nil || len(v) != 3 {
				t.Errorf("got %v, %v", v, err)
			}
		}()
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Fatalf("built %d times", builds.Load())
	}
	hits, misses := c.Stats()
	if hits != 15 || misses != 1 {
		t.Fatalf("hits %d misses %d", hits, misses)
	}
	boom := errors.New("boom")
	if _, err := Shape(context.Background(), c, "bad", 1, func() (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("build error lost: %v", err)
	}
}

func TestShapeCacheHitsOnSpans(t *testing.T) {
	c, _ := NewShapeCache(1 << 20)
	defer c.Close()
	g := New()
	in := Input[int](g, "in")
	Then(g, Stage[int, int]{Name: "uses-cache", Run: func(ctx context.Context, _ Workers, x int) (int, error) {
		return Shape(ctx, c, "table", 8, func() (int, error) { return x * 2, nil })
	}}, in)
	var spans []Span
	for i := 0; i < 2; i++ {
		res, err := g.Run(context.Background(), NewScheduler(1), Feed(in, 5))
		if err != nil {
			t.Fatal(err)
		}
		spans = append(spans, res.Spans...)
	}
	if spans[0].Misses != 1 || spans[0].Hits != 0 || spans[1].Hits != 1 || spans[1].Misses != 0 {
		t.Fatalf("spans %+v", spans)
	}
}
