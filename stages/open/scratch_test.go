package open

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/ntt"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/transcript"
)

// proveWith runs the stacked prover over s (nil: a fresh Scratch) and commitment c.
func (in *instance) proveWith(t testing.TB, s *Scratch, c *commit.Committed, ring RingClaim, workers int) *transcript.Proof {
	t.Helper()
	tr := transcript.NewProver(testLabel, nil)
	h := commit.RootHalves(c.Root())
	tr.SendMany(h[:])
	if s == nil {
		s = new(Scratch)
	}
	if err := s.ProveStacked(tr, c, in.place, ring, in.points, par.New(nil, workers)); err != nil {
		t.Fatal(err)
	}
	return tr.Proof()
}

// One Scratch and one Committed carried through shapes of several sizes, rates,
// lane counts and claims give the bytes of fresh ones.
func TestScratchReuseAcrossShapes(t *testing.T) {
	rng := testrand.New(t)
	var s Scratch
	var c commit.Committed
	for _, sh := range []struct{ log, rate, lanes, colVars, points, workers int }{
		{17, 1, 64, 17, 0, 2}, {15, 2, 64, 13, 2, 1}, {16, 1, 37, 12, 1, 2}, {17, 1, 64, 15, 3, 1}, {16, 3, 64, 16, 0, 2},
	} {
		var in *instance
		if sh.lanes == 64 {
			in = newInstance(rng, sh.log, sh.rate, sh.colVars, sh.points)
		} else {
			in = newPartialInstance(rng, sh.log, sh.rate, sh.lanes, sh.colVars, sh.points)
		}
		fresh, err := commit.Commit(in.committed(), in.stackLog, in.rate, par.New(nil, 1))
		if err != nil {
			t.Fatal(err)
		}
		want := in.proveWith(t, nil, fresh, in.ring(true), 1).MarshalWire()
		if err := commit.CommitInto(&c, in.committed(), in.stackLog, in.rate, par.New(nil, sh.workers)); err != nil {
			t.Fatal(err)
		}
		if got := in.proveWith(t, &s, &c, in.ring(true), sh.workers).MarshalWire(); !bytes.Equal(got, want) {
			t.Fatalf("%+v: proof over reused buffers differs from a fresh one", sh)
		}
	}
}

// A warm Scratch and Committed make a proof of a known shape allocate little beyond
// the proof itself (its scalar stream and Merkle openings).
func TestScratchWarmAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops pooled NTT scratch at random")
	}
	rng := testrand.New(t)
	const log = 18
	in := newInstance(rng, log, 1, log, 1)
	ring := in.ring(true)
	weights := append([]field.E(nil), ring.Weights...)
	// The plans are kept across proofs, as an engine's shape cache keeps them.
	kept := map[int]*ntt.Plan{}
	plans := commit.PlanSource(func(logD int) *ntt.Plan {
		if kept[logD] == nil {
			kept[logD] = ntt.NewPlan(logD)
		}
		return kept[logD]
	})
	s := Scratch{Plans: plans}
	c := commit.Committed{Plans: plans}
	prove := func() *transcript.Proof {
		copy(ring.Weights, weights) // the full-stack column's weights are consumed
		if err := commit.CommitInto(&c, in.stack, log, 1, par.New(nil, 2)); err != nil {
			t.Fatal(err)
		}
		return in.proveWith(t, &s, &c, ring, 2)
	}
	cold := allocated(func() { prove() })
	var proof *transcript.Proof
	const runs = 3
	warm := allocated(func() {
		for range runs {
			proof = prove()
		}
	}) / runs
	own := uint64(len(proof.MarshalRaw()) + len(proof.MarshalWire()))
	t.Logf("cold proof %d KiB, warm proof %d KiB, proof bytes (raw + wire) %d KiB", cold>>10, warm>>10, own>>10)
	// What the prover itself keeps beyond the proof's stream and openings is a few
	// KiB of headers; the smallest reused table at this shape is 96 KiB.
	if warm > own*5/4+32<<10 {
		t.Fatalf("warm proof allocates %d bytes; the proof itself is about %d", warm, own)
	}
}

// allocated returns the bytes fn allocates on the heap. A collection first moves the
// next one far away (and keeps pooled scratch of other packages in sync.Pool's
// victim cache), so a warm run is not charged for refilling a pool.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// The deeper levels' codewords and trees laid in the consumed weight's spare memory
// give the bytes of the Scratch's own buffers: for a full stack read two lane rounds
// per pass (every level carved, no level buffer grown), for a partial stack (one
// round per pass) and at a high rate (the levels that do not fit fall back).
func TestSpareLevelsGiveSameBytes(t *testing.T) {
	rng := testrand.New(t)
	for _, sh := range []struct {
		log, rate, lanes int
		allCarved        bool
	}{{17, 1, 64, true}, {16, 1, 37, false}, {16, 4, 64, false}, {15, 2, 64, false}} {
		var in *instance
		if sh.lanes == 64 {
			in = newInstance(rng, sh.log, sh.rate, sh.log, 0)
		} else {
			in = newPartialInstance(rng, sh.log, sh.rate, sh.lanes, sh.log-7, 0)
		}
		c, err := commit.Commit(in.committed(), in.stackLog, in.rate, par.New(nil, 1))
		if err != nil {
			t.Fatal(err)
		}
		own := Scratch{ownLevels: true}
		want := in.proveWith(t, &own, c, in.ring(true), 2).MarshalWire()
		var spare Scratch
		got := in.proveWith(t, &spare, c, in.ring(true), 2).MarshalWire()
		if !bytes.Equal(got, want) {
			t.Fatalf("%+v: levels in the spare weight give other bytes than the scratch's own", sh)
		}
		if len(own.levels) == 0 {
			t.Fatalf("%+v: no deeper level committed", sh)
		}
		grown := 0
		for _, lb := range spare.levels {
			if lb.words != nil {
				grown++
			}
		}
		if sh.allCarved && grown != 0 {
			t.Fatalf("%+v: %d level buffers grown, want every level in the spare weight", sh, grown)
		}
		t.Logf("%+v: %d of %d deeper levels in the scratch's own buffers", sh, grown, len(own.levels)-1)
	}
}
