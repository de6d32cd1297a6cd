package commit

import (
	"errors"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/merkle"
)

func TestCommitShapes(t *testing.T) {
	for _, c := range []struct{ log, rate, words int }{
		{14, 1, 1 << 14}, {29, 1, 0}, {15, 0, 1 << 15}, {15, 5, 1 << 15}, {15, 1, 1<<15 - 1}, {16, 1, 1<<16 + 1<<10},
		{15, 1, 0}, {15, 1, 1<<9 + 1}, {17, 2, 1 << 10},
	} {
		if _, err := Commit(make([]field.K, c.words), c.log, c.rate, 1); !errors.Is(err, ErrShape) {
			t.Errorf("Commit(log %d, rate %d, %d words): err %v, want ErrShape", c.log, c.rate, c.words, err)
		}
	}
}

func TestCommitDeterministicAndConsistent(t *testing.T) {
	rng := testrand.New(t)
	stack := make([]field.K, 1<<15)
	for i := range stack {
		stack[i] = field.K(rng.Uint64())
	}
	ref, err := Commit(stack, 15, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ref.BlockLog() != 10 || len(ref.Codeword) != 64<<10 || ref.Tree.Depth() != 10 {
		t.Fatalf("shape: block log %d, %d words, depth %d", ref.BlockLog(), len(ref.Codeword), ref.Tree.Depth())
	}
	for _, w := range []int{2, 3, 4} {
		c, err := Commit(stack, 15, 1, w)
		if err != nil {
			t.Fatal(err)
		}
		if c.Root() != ref.Root() {
			t.Fatalf("workers %d: root differs", w)
		}
	}
	// Every leaf is the hash of its codeword row.
	for _, q := range []int{0, 513, 1023} {
		if !merkle.VerifyPath(ref.Root(), ref.Codeword[q*64:(q+1)*64], q, ref.Tree.Path(q)) {
			t.Fatalf("row %d does not authenticate", q)
		}
	}
	// The root binds every stack word.
	stack[0] ^= 1
	other, _ := Commit(stack, 15, 1, 1)
	if other.Root() == ref.Root() {
		t.Fatal("changing a stack word kept the root")
	}
}

// A stack of fewer lane blocks commits like the zero-padded full stack: same root,
// rows that are the tails of the full leaves.
func TestCommitPartialLanes(t *testing.T) {
	rng := testrand.New(t)
	for _, lanes := range []int{1, 2, 5, 37, 63} {
		full := make([]field.K, 1<<15)
		for i := range lanes << 9 {
			full[i] = field.K(rng.Uint64())
		}
		want, err := Commit(full, 15, 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Commit(full[:lanes<<9], 15, 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got.Lanes != lanes || got.Root() != want.Root() {
			t.Fatalf("lanes %d: root differs from the zero-padded stack", lanes)
		}
		for _, q := range []int{0, 999, 2047} {
			row := got.Codeword[q*lanes : (q+1)*lanes]
			image := want.Codeword[q*64 : (q+1)*64]
			for i, w := range image[:64-lanes] {
				if w != 0 {
					t.Fatalf("lanes %d row %d: absent lane word %d is %#x", lanes, q, i, w)
				}
			}
			for i := range row {
				if row[i] != image[64-lanes+i] {
					t.Fatalf("lanes %d row %d: word %d differs from the full leaf's tail", lanes, q, i)
				}
			}
		}
	}
}

func TestRootHalves(t *testing.T) {
	rng := testrand.New(t)
	var d merkle.Digest
	for i := range d {
		d[i] = byte(rng.Uint32())
	}
	h := RootHalves(d)
	if h[0].C2 != 0 || h[1].C2 != 0 {
		t.Fatal("a half has c2 ≠ 0")
	}
	back, err := RootFromHalves(h[0], h[1])
	if err != nil || back != d {
		t.Fatalf("round trip: %v", err)
	}
	h[1].C2 = 1
	if _, err := RootFromHalves(h[0], h[1]); !errors.Is(err, ErrRoot) {
		t.Fatalf("c2 ≠ 0 accepted: %v", err)
	}
}
