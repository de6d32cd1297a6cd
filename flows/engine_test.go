package flows

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
)

// randomBlocks is Generate from the test seed, with every third block given an
// arbitrary chaining value, counter and flags (the circuit takes any).
func randomBlocks(t testing.TB, n int) []witness.Compression {
	rng := testrand.New(t)
	blocks := Generate(n, rng.Uint64())
	for i := 1; i < n; i += 3 {
		blocks[i].H[0] ^= rng.Uint32()
		blocks[i].T = rng.Uint64()
		blocks[i].F0 = 0
	}
	return blocks
}

// TestEngineMatchesDirectAtEveryWorkerCount: the graph flow gives the same bytes as
// the direct call path, at 1, 2 and 4 cores, and its proofs verify in both forms.
func TestEngineMatchesDirectAtEveryWorkerCount(t *testing.T) {
	blocks := randomBlocks(t, 300)
	want, err := ProveBatch(blocks, BatchOptions{LogInvRate: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	wantRaw, wantWire := want.MarshalRaw(), want.MarshalWire()
	for _, cores := range []int{1, 2, 4} {
		e, err := NewEngine(EngineOptions{Cores: cores})
		if err != nil {
			t.Fatal(err)
		}
		var firstMisses int64
		for round := 0; round < 2; round++ {
			if round == 1 {
				_, firstMisses = e.CacheStats()
			}
			got, err := e.Prove(context.Background(), Request{Input: Blocks(blocks), LogInvRate: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Proof.MarshalRaw(), wantRaw) || !bytes.Equal(got.Proof.MarshalWire(), wantWire) {
				t.Fatalf("cores=%d round %d: graph proof differs from the direct one", cores, round)
			}
			for _, sp := range got.Spans {
				if sp.Workers < 1 || sp.Workers > cores {
					t.Fatalf("stage %s granted %d workers on %d cores", sp.Name, sp.Workers, cores)
				}
			}
		}
		k, ext := e.PoolStats()
		if k.Allocated != 1 || ext.Allocated != 1 || k.Reused != 1 || ext.Reused != 1 {
			t.Fatalf("cores=%d: pools did not reuse buffers: K %+v, E %+v", cores, k, ext)
		}
		// The second proof of the shape finds every table (WHIR config, NTT plans) cached.
		if hits, misses := e.CacheStats(); misses != firstMisses || firstMisses < 2 || hits < firstMisses {
			t.Fatalf("cache hits %d misses %d (first proof: %d misses)", hits, misses, firstMisses)
		}
		e.Close()
	}
	for _, form := range [][]byte{wantRaw, wantWire} {
		var p transcript.Proof
		dec := p.UnmarshalRaw
		if bytes.Equal(form, wantWire) {
			dec = p.UnmarshalWire
		}
		if err := dec(form); err != nil {
			t.Fatal(err)
		}
		if err := VerifyBatch(&p, len(blocks), 1); err != nil {
			t.Fatalf("proof rejected: %v", err)
		}
	}
}

// TestSmallAndOddBatches covers N ≤ 64 (the column padded into a 2^15 stack), N = 1,
// batch sizes around powers of two, and higher rates; each proof verifies, and is
// rejected for the wrong slot count.
func TestSmallAndOddBatches(t *testing.T) {
	cases := []struct{ n, rate int }{{1, 1}, {5, 1}, {8, 1}, {9, 2}, {64, 1}, {65, 1}, {129, 3}, {33, 4}}
	for _, c := range cases {
		blocks := randomBlocks(t, c.n)
		proof, err := ProveBatch(blocks, BatchOptions{LogInvRate: c.rate, Workers: 2})
		if err != nil {
			t.Fatalf("n=%d: %v", c.n, err)
		}
		if err := VerifyBatch(proof, c.n, c.rate); err != nil {
			t.Fatalf("n=%d rate=%d: rejected: %v", c.n, c.rate, err)
		}
		sh, _ := BatchShape(c.n, c.rate)
		other := 1 << (sh.NLog + 1)
		if err := VerifyBatch(proof, other, c.rate); err == nil {
			t.Fatalf("n=%d: accepted as a batch of %d", c.n, other)
		}
	}
}

func TestBadRequests(t *testing.T) {
	e, err := NewEngine(EngineOptions{Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, req := range []Request{{Input: Blocks(nil), LogInvRate: 1}, {Input: Blocks(randomBlocks(t, 4)), LogInvRate: -1}, {Input: Blocks(randomBlocks(t, 4)), LogInvRate: 5}} {
		if _, err := e.Prove(context.Background(), req); !errors.Is(err, ErrInput) {
			t.Fatalf("request with %d blocks at rate %d: got %v", req.Input.Len(), req.LogInvRate, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Prove(ctx, Request{Input: Blocks(randomBlocks(t, 8)), LogInvRate: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: got %v", err)
	}
}

// TestEngineConcurrentProofs runs several proofs through one engine at once (their
// stages share the cores); each equals its direct proof.
func TestEngineConcurrentProofs(t *testing.T) {
	e, err := NewEngine(EngineOptions{Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sizes := []int{20, 70, 20, 9}
	want := make([][]byte, len(sizes))
	reqs := make([]Request, len(sizes))
	for i, n := range sizes {
		reqs[i] = Request{Input: Blocks(Generate(n, uint64(i))), LogInvRate: 1}
		p, err := ProveBatch(reqs[i].Input.(Blocks), BatchOptions{LogInvRate: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = p.MarshalWire()
	}
	errs := make(chan error, len(sizes))
	for i := range sizes {
		go func(i int) {
			p, err := e.Prove(context.Background(), reqs[i])
			if err == nil && !bytes.Equal(p.Proof.MarshalWire(), want[i]) {
				err = errors.New("concurrent proof differs from the direct one")
			}
			errs <- err
		}(i)
	}
	for range sizes {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if e.Scheduler().Peak() > 2 {
		t.Fatalf("%d cores granted at once on a 2-core engine", e.Scheduler().Peak())
	}
}

// TestShortStackCommitsItsLanes: for N ≤ 64 the column fills fewer than 64 lanes of
// the 2^15 stack. Committing only those lanes (the reference's short-stack commit)
// gives the same root, scalar stream and raw proof as committing the zero-padded
// stack in full; only the wire rows are narrower.
func TestShortStackCommitsItsLanes(t *testing.T) {
	for _, n := range []int{1, 9, 33, 64} {
		blocks := randomBlocks(t, n)
		sh, err := BatchShape(n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 << (sh.Mu - 9); sh.Lanes != want || sh.StackLog != 15 {
			t.Fatalf("n=%d: shape %+v", n, sh)
		}
		narrow, err := ProveBatch(blocks, BatchOptions{LogInvRate: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		words := witness.Words(sh.NLog)
		full := make([]field.K, 1<<sh.StackLog)
		a, b := make([]field.K, words), make([]field.K, words)
		if err := witness.FillAB(full[:words], a, b, blocks, sh.NLog, par.New(nil, 2)); err != nil {
			t.Fatal(err)
		}
		wide, err := proveFilled(sh, full, a, b, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(narrow.MarshalRaw(), wide.MarshalRaw()) {
			t.Fatalf("n=%d: raw proofs differ between the lane-only and the full commitment", n)
		}
		nw, ww := narrow.MarshalWire(), wide.MarshalWire()
		if len(nw) >= len(ww) {
			t.Fatalf("n=%d: wire proof of %d bytes, the full-width one %d", n, len(nw), len(ww))
		}
		var p transcript.Proof
		if err := p.UnmarshalWire(nw); err != nil {
			t.Fatal(err)
		}
		if err := VerifyBatch(&p, n, 1); err != nil {
			t.Fatalf("n=%d: wire proof rejected: %v", n, err)
		}
	}
}
