package flows

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
)

// taggedBlocks is a BLAKE2s batch input with statement data {"tag": tag} that
// writes it on workers (StatedOn) and gives its own binding (Bound), absorbing
// absorb; it records how the plan stage called it.
type taggedBlocks struct {
	Blocks
	tag       string
	absorb    []byte
	onWorkers *atomic.Int32 // StatementOn's worker count (0: not called)
	bindCalls *atomic.Int32
}

func (b taggedBlocks) Statement() json.RawMessage {
	d, _ := json.Marshal(map[string]string{"tag": b.tag})
	return d
}

func (b taggedBlocks) StatementOn(w graph.Workers) json.RawMessage {
	b.onWorkers.Store(int32(w.N()))
	return b.Statement()
}

func (b taggedBlocks) Binding() (Binding, error) {
	b.bindCalls.Add(1)
	return Binding{Absorb: b.absorb}, nil
}

// taggedFlow is the BLAKE2s batch flow with a statement {"tag": X} bound by
// absorbing "tag:" ‖ X.
func taggedFlow(parallelPlan bool) *Flock {
	spec := Batch.spec
	spec.Name, spec.Label = "tagged-test", "tagged-test-v0"
	spec.ParallelPlan = parallelPlan
	spec.Fill = func(w graph.Workers, in Input, nLog int, wit, a, b []field.K) error {
		return Batch.spec.Fill(w, in.(taggedBlocks).Blocks, nLog, wit, a, b)
	}
	spec.Bind = func(st Statement) (Binding, error) {
		var d struct{ Tag string }
		if err := json.Unmarshal(st.Data, &d); err != nil {
			return Binding{}, fmt.Errorf("%w: %v", ErrInput, err)
		}
		return Binding{Absorb: []byte("tag:" + d.Tag)}, nil
	}
	return NewFlock(spec)
}

// The plan stage takes a StatedOn input's data written on its workers (all of
// them with ParallelPlan, one without) and a Bound input's own binding; the
// verifier binds the statement itself, so a proof made with a Binding that is not
// Bind's is rejected.
func TestPlanTakesInputStatementAndBinding(t *testing.T) {
	blocks := Blocks(randomBlocks(t, 9))
	for _, c := range []struct {
		parallel    bool
		absorb      string
		wantWorkers int32
		verifies    bool
	}{
		{parallel: true, absorb: "tag:x", wantWorkers: 2, verifies: true},
		{parallel: false, absorb: "tag:x", wantWorkers: 1, verifies: true},
		{parallel: true, absorb: "tag:y", wantWorkers: 2, verifies: false},
	} {
		f := taggedFlow(c.parallel)
		in := taggedBlocks{Blocks: blocks, tag: "x", absorb: []byte(c.absorb), onWorkers: new(atomic.Int32), bindCalls: new(atomic.Int32)}
		p, err := Prove(context.Background(), Request{Flow: f, Input: in}, ProveOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := in.onWorkers.Load(); got != c.wantWorkers {
			t.Errorf("parallel plan %v: StatementOn ran on %d workers, want %d", c.parallel, got, c.wantWorkers)
		}
		if in.bindCalls.Load() != 1 {
			t.Errorf("parallel plan %v: Binding called %d times, want once", c.parallel, in.bindCalls.Load())
		}
		if !bytes.Equal(p.Statement.Data, in.Statement()) {
			t.Errorf("statement data %s, want %s", p.Statement.Data, in.Statement())
		}
		_, err = f.Verify(p.Proof, p.Statement)
		if c.verifies && err != nil {
			t.Errorf("absorb %q: %v", c.absorb, err)
		}
		if !c.verifies && err == nil {
			t.Errorf("absorb %q (not Bind's): the proof verified", c.absorb)
		}
	}
}
