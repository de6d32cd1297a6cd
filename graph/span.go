package graph

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync/atomic"
	"time"
)

// Span records one stage run.
type Span struct {
	Name     string        `json:"name"`
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration_ns"`
	Workers  int           `json:"workers"`
	// Cores are the scheduler's core slots the stage held (see Scheduler; nil
	// for a stage run outside a Graph, as by Chain.Run).
	Cores    []int  `json:"cores,omitempty"`
	BytesIn  int64  `json:"bytes_in"`
	BytesOut int64  `json:"bytes_out"`
	Hits     int64  `json:"cache_hits"`
	Misses   int64  `json:"cache_misses"`
	Err      string `json:"error,omitempty"`
}

// counters collects what a running stage reports about itself.
type counters struct {
	stage        string
	hits, misses atomic.Int64
}

// Sized is implemented by stage values that know their size in bytes; spans use it
// for bytes in and out.
type Sized interface{ SizeBytes() int64 }

func sizeOf(vs []any) int64 {
	var t int64
	for _, v := range vs {
		switch x := v.(type) {
		case Sized:
			t += x.SizeBytes()
		}
	}
	return t
}

type spanKey struct{}

func withCounters(ctx context.Context, c *counters) context.Context {
	return context.WithValue(ctx, spanKey{}, c)
}

type startKey struct{}

// WithStageStart returns a context under which every stage a Graph or a Chain runs
// calls fn with its name as it starts (for progress displays); fn must be quick and
// safe for concurrent calls.
func WithStageStart(ctx context.Context, fn func(stage string)) context.Context {
	return context.WithValue(ctx, startKey{}, fn)
}

// StageName returns the name of the stage running under ctx ("" outside a stage).
func StageName(ctx context.Context) string {
	if c, _ := ctx.Value(spanKey{}).(*counters); c != nil {
		return c.stage
	}
	return ""
}

// runStage runs one stage with n workers bound to a stage context and fills its span:
// a panic in the stage or in any of its workers' goroutines, and a cancellation the
// workers saw, become the stage's error.
func runStage(ctx context.Context, name string, n int, bytesIn int64, run func(ctx context.Context, w Workers) (any, error)) (any, Span, error) {
	span := Span{Name: name, Start: time.Now(), Workers: n, BytesIn: bytesIn}
	if fn, _ := ctx.Value(startKey{}).(func(string)); fn != nil {
		fn(name)
	}
	cnt := &counters{stage: name}
	sctx := withCounters(ctx, cnt)
	w := NewWorkers(sctx, n)
	var out any
	err := Protect(func() error {
		var e error
		out, e = run(sctx, w)
		return e
	})
	if err == nil {
		err = w.Err()
	}
	span.Duration = time.Since(span.Start)
	span.Hits, span.Misses = cnt.hits.Load(), cnt.misses.Load()
	if err != nil {
		span.Err = err.Error()
		return nil, span, err
	}
	span.BytesOut = sizeOf([]any{out})
	return out, span, nil
}

// CacheHit records a shape-cache hit (hit = true) or miss on the span of the stage
// running under ctx; outside a stage it does nothing.
func CacheHit(ctx context.Context, hit bool) {
	c, _ := ctx.Value(spanKey{}).(*counters)
	if c == nil {
		return
	}
	if hit {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
}

func sortSpans(spans []Span) {
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].Start.Before(spans[j].Start) })
}

// WriteTable prints spans as a stage table: name, time, share of the total, workers,
// bytes in/out and cache hits/misses.
func WriteTable(w io.Writer, title string, spans []Span) {
	var total time.Duration
	for _, s := range spans {
		total += s.Duration
	}
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, "  %-14s %11s %7s %7s %12s %12s %9s\n", "stage", "time", "share", "workers", "in", "out", "cache")
	for _, s := range spans {
		share := 0.0
		if total > 0 {
			share = 100 * float64(s.Duration) / float64(total)
		}
		cache := "-"
		if s.Hits+s.Misses > 0 {
			cache = fmt.Sprintf("%d/%d", s.Hits, s.Hits+s.Misses)
		}
		fmt.Fprintf(w, "  %-14s %8.1f ms %6.1f%% %7d %12s %12s %9s\n", s.Name,
			float64(s.Duration.Microseconds())/1e3, share, s.Workers, human(s.BytesIn), human(s.BytesOut), cache)
		if s.Err != "" {
			fmt.Fprintf(w, "    error: %s\n", s.Err)
		}
	}
	fmt.Fprintf(w, "  %-14s %8.1f ms\n", "total", float64(total.Microseconds())/1e3)
}

func human(n int64) string {
	switch {
	case n == 0:
		return "-"
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
