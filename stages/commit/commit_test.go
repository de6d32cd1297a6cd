package commit

import (
	"errors"
	"runtime"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
)

func TestCommitShapes(t *testing.T) {
	for _, c := range []struct{ log, rate, words int }{
		{14, 1, 1 << 14}, {29, 1, 0}, {15, 0, 1 << 15}, {15, 5, 1 << 15}, {15, 1, 1<<15 - 1}, {16, 1, 1<<16 + 1<<10},
		{15, 1, 0}, {15, 1, 1<<9 + 1}, {17, 2, 1 << 10},
	} {
		if _, err := Commit(make([]field.K, c.words), c.log, c.rate, par.New(nil, 1)); !errors.Is(err, ErrShape) {
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
	ref, err := Commit(stack, 15, 1, par.New(nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	if ref.BlockLog() != 10 || len(ref.Codeword) != 64<<10 || ref.Tree.Depth() != 10 {
		t.Fatalf("shape: block log %d, %d words, depth %d", ref.BlockLog(), len(ref.Codeword), ref.Tree.Depth())
	}
	for _, w := range []int{2, 3, 4} {
		c, err := Commit(stack, 15, 1, par.New(nil, w))
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
	other, _ := Commit(stack, 15, 1, par.New(nil, 1))
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
		want, err := Commit(full, 15, 2, par.New(nil, 2))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Commit(full[:lanes<<9], 15, 2, par.New(nil, 2))
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

// CommitInto over a reused Committed (buffers left dirty by other shapes and
// stacks) gives the bytes of a fresh Commit, and a warm call allocates only the
// tree header.
func TestCommitIntoReuse(t *testing.T) {
	rng := testrand.New(t)
	random := func(n int) []field.K {
		s := make([]field.K, n)
		for i := range s {
			s[i] = field.K(rng.Uint64())
		}
		return s
	}
	var dst Committed
	for _, c := range []struct{ log, rate, words, workers int }{
		{16, 2, 1 << 16, 2}, {15, 1, 1 << 15, 1}, {15, 1, 5 << 9, 2}, {17, 1, 1 << 17, 3}, {15, 3, 1 << 15, 1}, {15, 1, 1 << 15, 2},
	} {
		stack := random(c.words)
		// Dirty whatever the previous shape left.
		for i := range dst.Codeword[:cap(dst.Codeword)] {
			dst.Codeword[:cap(dst.Codeword)][i] = rng.Uint64()
		}
		if dst.Tree != nil {
			nodes := dst.Tree.Nodes()
			for i := range nodes[:cap(nodes)] {
				nodes[:cap(nodes)][i][0] ^= 0x5a
			}
		}
		if err := CommitInto(&dst, stack, c.log, c.rate, par.New(nil, c.workers)); err != nil {
			t.Fatal(err)
		}
		want, err := Commit(stack, c.log, c.rate, par.New(nil, 1))
		if err != nil {
			t.Fatal(err)
		}
		if dst.Root() != want.Root() || dst.Lanes != want.Lanes || len(dst.Codeword) != len(want.Codeword) {
			t.Fatalf("%+v: reused commitment differs from a fresh one", c)
		}
		for i := range want.Codeword {
			if dst.Codeword[i] != want.Codeword[i] {
				t.Fatalf("%+v: codeword word %d differs", c, i)
			}
		}
	}
	if err := CommitInto(&dst, random(100), 15, 1, par.New(nil, 1)); !errors.Is(err, ErrShape) {
		t.Fatalf("bad stack accepted: %v", err)
	}
	stack := random(1 << 16)
	if err := CommitInto(&dst, stack, 16, 1, par.New(nil, 1)); err != nil {
		t.Fatal(err)
	}
	// Warm calls allocate only small headers and closures (ntt, merkle): bound the
	// bytes against the 2^17-word codeword and 2^12-node tree they reuse.
	var before, after runtime.MemStats
	runtime.GC() // keeps the next collection (and pool clearing) out of the window
	runtime.ReadMemStats(&before)
	const runs = 4
	for range runs {
		if err := CommitInto(&dst, stack, 16, 1, par.New(nil, 2)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if perRun := (after.TotalAlloc - before.TotalAlloc) / runs; perRun > 16<<10 {
		t.Fatalf("warm CommitInto allocates %d bytes per call, want at most 16 KiB", perRun)
	} else {
		t.Logf("warm CommitInto: %d bytes, %d objects per call", perRun, (after.Mallocs-before.Mallocs)/runs)
	}
}

func TestShapeValidate(t *testing.T) {
	for _, c := range []struct {
		words, stackLog, rate int
		ok                    bool
		lanes                 int
	}{
		{1 << 15, 15, 1, true, 64},
		{1 << 9, 15, 2, true, 1},
		{3 << 9, 15, 4, true, 3},
		{1<<9 + 1, 15, 1, false, 0}, // not whole lane blocks
		{0, 15, 1, false, 0},        // no lane
		{1 << 16, 15, 1, false, 0},  // more than 64 lanes
		{1 << 14, 14, 1, false, 0},  // stack too small
		{1 << 15, 15, 5, false, 0},  // rate out of range
	} {
		sh, err := ShapeOf(c.words, c.stackLog, c.rate)
		if (err == nil) != c.ok || (c.ok && (sh.Lanes != c.lanes || sh.Words() != c.words)) {
			t.Fatalf("ShapeOf(%d, %d, %d) = %+v, %v", c.words, c.stackLog, c.rate, sh, err)
		}
		if err != nil && !errors.Is(err, ErrShape) {
			t.Fatalf("ShapeOf(%d, %d, %d): error %v is not ErrShape", c.words, c.stackLog, c.rate, err)
		}
	}
	if FullShape(20, 2).Validate() != nil || FullShape(20, 2).Words() != 1<<20 {
		t.Fatal("FullShape")
	}
}
