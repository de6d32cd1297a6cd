package flows

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/par"
)

// TestCancelledProofReturnsPromptly cancels 2^16-compression proofs at several
// points of their run, on the engine at 1 and 2 cores, and bounds the time from
// cancellation to Prove's return (the kernels check the context between chunks).
func TestCancelledProofReturnsPromptly(t *testing.T) {
	if testing.Short() {
		t.Skip("proves 2^16 compressions")
	}
	if raceEnabled {
		t.Skip("timing bound under the race detector")
	}
	blocks := Generate(1<<16, 1)
	for _, cores := range []int{1, 2} {
		e, err := NewEngine(EngineOptions{Cores: cores})
		if err != nil {
			t.Fatal(err)
		}
		var worst time.Duration
		for _, after := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond, 1200 * time.Millisecond} {
			ctx, cancel := context.WithCancelCause(context.Background())
			why := errors.New("test cancels the proof")
			var cancelled time.Time
			timer := time.AfterFunc(after, func() {
				cancelled = time.Now()
				cancel(why)
			})
			_, err := e.Prove(ctx, Request{Input: Blocks(blocks), LogInvRate: 1})
			returned := time.Now()
			timer.Stop()
			if err == nil {
				// The proof finished before the timer: nothing to measure.
				cancel(nil)
				continue
			}
			if !errors.Is(err, why) {
				t.Fatalf("cores=%d, cancelled after %v: error %v, want the cancellation cause", cores, after, err)
			}
			lat := returned.Sub(cancelled)
			worst = max(worst, lat)
			stage := "?"
			var se *graph.StageError
			if errors.As(err, &se) {
				stage = se.Stage
			}
			t.Logf("cores=%d: cancelled after %v in %s, returned %v later", cores, after, stage, lat.Round(time.Millisecond))
			if lat > 2*time.Second {
				t.Fatalf("cores=%d: Prove returned %v after cancellation", cores, lat)
			}
		}
		t.Logf("cores=%d: worst cancellation latency %v", cores, worst.Round(time.Millisecond))
		// The engine still proves after cancelled runs, and gives the same bytes.
		small := Generate(100, 2)
		got, err := e.Prove(context.Background(), Request{Input: Blocks(small), LogInvRate: 1})
		if err != nil {
			t.Fatal(err)
		}
		want, err := ProveBatch(small, BatchOptions{LogInvRate: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Proof.MarshalWire(), want.MarshalWire()) {
			t.Fatal("proof after cancellations differs")
		}
		e.Close()
	}
}

// stagesWithChunks proves once with a chunk hook that records which stages run
// worker chunks.
func stagesWithChunks(t *testing.T, e *Engine, req Request) []string {
	var mu sync.Mutex
	seen := map[string]bool{}
	restore := par.SetChunkHook(func(ctx context.Context) {
		mu.Lock()
		seen[graph.StageName(ctx)] = true
		mu.Unlock()
	})
	defer restore()
	if _, err := e.Prove(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// TestWorkerPanicInEveryStage injects a panic into a worker chunk of each stage in
// turn: Engine.Prove (and the direct path) return it as that stage's error, and the
// engine goes on to prove correctly afterwards.
func TestWorkerPanicInEveryStage(t *testing.T) {
	blocks := randomBlocks(t, 300)
	req := Request{Input: Blocks(blocks), LogInvRate: 1}
	want, err := ProveBatch(blocks, BatchOptions{LogInvRate: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(EngineOptions{Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	stages := stagesWithChunks(t, e, req)
	for _, must := range []string{"witness", "commit", "zerocheck", "lincheck", "open"} {
		if !slices.Contains(stages, must) {
			t.Fatalf("stage %q ran no worker chunks (stages with chunks: %v)", must, stages)
		}
	}
	for _, stage := range stages {
		restore := par.SetChunkHook(func(ctx context.Context) {
			if graph.StageName(ctx) == stage {
				panic(fmt.Sprintf("injected into %s", stage))
			}
		})
		_, engErr := e.Prove(context.Background(), req)
		_, directErr := Prove(context.Background(), req, ProveOptions{Workers: 2})
		restore()
		for path, err := range map[string]error{"engine": engErr, "direct": directErr} {
			var pe *graph.PanicError
			var se *graph.StageError
			if !errors.As(err, &pe) || !errors.As(err, &se) || se.Stage != stage || !strings.Contains(err.Error(), "injected into "+stage) {
				t.Fatalf("%s path, panic in a %s chunk: error %v", path, stage, err)
			}
		}
		got, err := e.Prove(context.Background(), req)
		if err != nil {
			t.Fatalf("after the panic in %s: %v", stage, err)
		}
		if !slices.Equal(got.Proof.MarshalWire(), want.MarshalWire()) {
			t.Fatalf("after the panic in %s: proof differs", stage)
		}
	}
}
