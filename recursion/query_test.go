package recursion

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/open"
)

const (
	testDepth    = 10
	testPointLen = 8
)

var testBlock = sync.OnceValue(func() *QueryBlock { return NewQueryBlock(testDepth, testPointLen) })

func randomE(r *rand.Rand) field.E {
	return field.E{C0: field.K(r.Uint64()), C1: field.K(r.Uint64()), C2: field.K(r.Uint64())}
}

// randomPoint is n random coordinates.
func randomPoint(r *rand.Rand, n int) []field.E {
	p := make([]field.E, n)
	for i := range p {
		p[i] = randomE(r)
	}
	return p
}

// queryInputs opens count random queries of a random 2^depth-leaf tree, with one eq
// table, point and weights shared as a level's are.
func queryInputs(r *rand.Rand, depth, pointLen, count int) (merkle.Digest, []QueryInput) {
	return queryInputsOf(r, RowWords, RowWords, depth, pointLen, count)
}

func queryInputsOf(r *rand.Rand, rowLen, eqLen, depth, pointLen, count int) (merkle.Digest, []QueryInput) {
	rows := make([]uint64, rowLen<<depth)
	for i := range rows {
		rows[i] = r.Uint64()
	}
	tree := merkle.New(rows, rowLen, par.Serial())
	eq := make([]field.E, eqLen)
	for i := range eq {
		eq[i] = randomE(r)
	}
	point := make([]field.E, pointLen)
	for i := range point {
		point[i] = randomE(r)
	}
	ins := make([]QueryInput, count)
	for i := range ins {
		q := r.IntN(1 << depth)
		ins[i] = QueryInput{Index: q, Row: tree.Row(q), Path: tree.Path(q), Eq: eq, Weight: randomE(r), Point: point}
	}
	return tree.Root(), ins
}

func TestQueryTermsNative(t *testing.T) {
	r := testrand.New(t)
	root, ins := queryInputs(r, testDepth, testPointLen, 8)
	for _, in := range ins {
		gotRoot, fold, induced := QueryTerms(&in, testPointLen)
		if gotRoot != root {
			t.Fatal("QueryTerms: the path does not climb to the tree's root")
		}
		if want := open.InducedWeight(testPointLen, []int{in.Index}, []field.E{in.Weight}, in.Point); induced != want {
			t.Fatalf("induced term %v, open.InducedWeight %v", induced, want)
		}
		var want field.E
		for l, w := range in.Row {
			want = want.Add(in.Eq[l].Mul(field.FromK(field.K(w))))
		}
		if want = want.Mul(in.Weight); fold != want {
			t.Fatalf("fold term %v, want %v", fold, want)
		}
	}
}

func TestQueryBlock(t *testing.T) { checkQueryBlock(t, testBlock(), RowWords, RowWords) }

func TestLaterQueryBlock(t *testing.T) {
	checkQueryBlock(t, NewLaterQueryBlock(testDepth, testPointLen), LaterRowWords, LaterRowWords/3)
}

func checkQueryBlock(t *testing.T, qb *QueryBlock, rowLen, eqLen int) {
	r := testrand.New(t)
	root, ins := queryInputsOf(r, rowLen, eqLen, testDepth, testPointLen, 64)
	w := make([]uint64, qb.Size())
	w[qb.ConstCol()] = ^uint64(0)
	for j := range ins {
		if err := qb.Set(w, uint(j), &ins[j]); err != nil {
			t.Fatal(err)
		}
	}
	qb.Solve(w, nil, nil)
	if row := qb.Satisfied(w); row >= 0 {
		t.Fatalf("row %d violated", row)
	}
	for j := range ins {
		gotRoot, fold, induced := qb.Outputs(w, uint(j))
		wantRoot, wantFold, wantInduced := QueryTerms(&ins[j], testPointLen)
		if gotRoot != root || wantRoot != root {
			t.Fatalf("instance %d: root %x, want %x", j, gotRoot, root)
		}
		if fold != wantFold || induced != wantInduced {
			t.Fatalf("instance %d: fold %v induced %v, want %v %v", j, fold, induced, wantFold, wantInduced)
		}
	}
	// A wrong sibling climbs to another root.
	bad := ins[0]
	bad.Path = append([]merkle.Digest(nil), bad.Path...)
	bad.Path[3][0] ^= 1
	w2 := make([]uint64, qb.Size())
	w2[qb.ConstCol()] = ^uint64(0)
	if err := qb.Set(w2, 0, &bad); err != nil {
		t.Fatal(err)
	}
	qb.Solve(w2, nil, nil)
	if got, _, _ := qb.Outputs(w2, 0); got == root {
		t.Fatal("a changed sibling still reached the root")
	}
	t.Logf("rows of %d words, depth %d, point %d: %d rows (inputs and the constant included), %d inputs, of 2^%d columns",
		rowLen, testDepth, testPointLen, qb.NumRows(), len(qb.Inputs()), qb.LogSize())
}

func TestQueryBlockRefusesBadInput(t *testing.T) {
	qb := testBlock()
	r := testrand.New(t)
	_, ins := queryInputs(r, testDepth, testPointLen, 1)
	w := make([]uint64, qb.Size())
	in := ins[0]
	in.Index = 1 << testDepth
	if err := qb.Set(w, 0, &in); err == nil {
		t.Fatal("an index past the tree was accepted")
	}
	in = ins[0]
	in.Path = in.Path[1:]
	if err := qb.Set(w, 0, &in); err == nil {
		t.Fatal("a short path was accepted")
	}
}
