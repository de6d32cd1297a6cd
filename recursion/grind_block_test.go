package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/transcript"
)

// TestGrindBlockReplaysChild: a real child's grinding checks, run through the block,
// give the nonce compressions' low bits — all zero — and a wrong nonce does not.
func TestGrindBlockReplaysChild(t *testing.T) {
	p, v := childWithValues(t, 4, 1, 61)
	_, grind, err := ChildTrace(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	gb := NewGrindBlock()
	w := make([]uint64, gb.Size())
	w[gb.ConstCol()] = ^uint64(0)
	checks := len(grind) / 2
	for c := range checks {
		gb.SetGrind(w, uint(c), grind[2*c], grind[2*c+1])
	}
	// One more lane with the last check's nonce changed.
	bad := grind[2*checks-1]
	bad.Block[0] ^= 1
	gb.SetGrind(w, uint(checks), grind[2*checks-2], bad)
	gb.Solve(w, nil, nil)
	if row := gb.Satisfied(w); row >= 0 {
		t.Fatalf("row %d violated", row)
	}
	for c := range checks {
		if got := gb.LowBits(w, uint(c)); got != 0 {
			t.Fatalf("check %d: low bits %x, want 0", c, got)
		}
		want := transcript.Compress(transcript.Compress(grind[2*c].In, grind[2*c].Block), grind[2*c+1].Block)
		if want != grind[2*c+1].Out {
			t.Fatalf("check %d: the trace's steps do not chain", c)
		}
	}
	if gb.LowBits(w, uint(checks)) == 0 {
		t.Fatal("a changed nonce still cleared the grinding bits")
	}
	t.Logf("%d grinding checks; block of 2^%d columns", checks, GrindLogSize)
}
