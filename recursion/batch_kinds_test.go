package recursion

import (
	"errors"
	"github.com/leanpipe/leanpipe/buffers"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// kindsBatch proves claims on cs and verifies verify against them.
func kindsBatch(t *testing.T, cs []*circuit.Circuit, prove, verify [][]MatrixClaim) (KindsClaim, KindsClaim, error) {
	t.Helper()
	ms := make([]Matrices, len(cs))
	logs := make([]int, len(cs))
	for k, c := range cs {
		ms[k], logs[k] = c, c.LogSize()
	}
	p := transcript.NewProver(claimsLabel, nil)
	got, err := BatchKindClaims(p, ms, prove, nil, nil, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewVerifier(p.Proof(), claimsLabel, nil)
	out, err := VerifyKindClaims(v, logs, verify, nil, nil)
	if err == nil {
		err = v.Finish()
	}
	return got, out, err
}

// TestBatchKindClaims: claims on three circuits of different sizes (the smaller ones
// zero-extended) batch to one point, where each circuit's values are true, prover and
// verifier agree, and a changed value, a claim moved to another circuit or a wrong
// output value is refused.
func TestBatchKindClaims(t *testing.T) {
	r := testrand.New(t)
	cs := []*circuit.Circuit{squareLayout(12).compile(), circuit.BLAKE2s(), squareLayout(14).compile()}
	claims := [][]MatrixClaim{trueClaims(r, cs[0], 2), trueClaims(r, cs[1], 1), trueClaims(r, cs[2], 3)}
	got, out, err := kindsBatch(t, cs, claims, claims)
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range cs {
		if got.VA[k] != out.VA[k] || got.VB[k] != out.VB[k] {
			t.Fatalf("circuit %d: prover and verifier disagree", k)
		}
		if err := CheckMatrixClaim(c, out.claim(k, c.LogSize(), out.VB[k])); err != nil {
			t.Fatalf("circuit %d's batched claim: %v", k, err)
		}
		// A wrong output value is the native check's to refuse.
		bad := out
		bad.VB = append([]field.E(nil), out.VB...)
		bad.VB[k] = bad.VB[k].Add(field.One)
		if err := CheckMatrixClaim(c, bad.claim(k, c.LogSize(), bad.VB[k])); !errors.Is(err, ErrClaim) {
			t.Fatalf("circuit %d: a wrong batched value: %v", k, err)
		}
	}
	// An output batches again beside fresh claims.
	again := [][]MatrixClaim{{out.claim(0, 12, out.VB[0]), claims[0][0]}, {out.claim(1, cs[1].LogSize(), out.VB[1])}, {out.claim(2, 14, out.VB[2])}}
	if _, out2, err := kindsBatch(t, cs, again, again); err != nil {
		t.Fatal(err)
	} else {
		for k, c := range cs {
			if err := CheckMatrixClaim(c, out2.claim(k, c.LogSize(), out2.VB[k])); err != nil {
				t.Fatalf("re-batched circuit %d: %v", k, err)
			}
		}
	}
	// A changed claimed value: the final identity fails.
	for k := range claims {
		lie := [][]MatrixClaim{append([]MatrixClaim(nil), claims[0]...), append([]MatrixClaim(nil), claims[1]...), append([]MatrixClaim(nil), claims[2]...)}
		lie[k][0].VA = lie[k][0].VA.Add(field.One)
		if _, _, err := kindsBatch(t, cs, claims, lie); !errors.Is(err, ErrBatch) {
			t.Fatalf("a changed value on circuit %d: %v", k, err)
		}
		// Batched as given, the false claim ends in an output the native check refuses.
		if _, out, err := kindsBatch(t, cs, lie, lie); err == nil {
			if err := CheckMatrixClaim(cs[k], out.claim(k, cs[k].LogSize(), out.VB[k])); !errors.Is(err, ErrClaim) {
				t.Fatalf("a false claim on circuit %d batched to a true output: %v", k, err)
			}
		} else if !errors.Is(err, ErrBatch) {
			t.Fatal(err)
		}
	}
	// A true claim of circuit 0 presented as circuit 2's (a smaller circuit's claim
	// zero-extended is not a claim on the larger one): refused by shape.
	moved := [][]MatrixClaim{claims[0][1:], claims[1], append(claims[2], claims[0][0])}
	if _, _, err := kindsBatch(t, cs, claims, moved); !errors.Is(err, ErrClaimShape) {
		t.Fatalf("a claim moved to another circuit: %v", err)
	}
}

// hiddenCircuit is a circuit the batch does not see as one: apartClaims takes its
// values by its bilinear form.
type hiddenCircuit struct{ *circuit.Circuit }

// TestBatchKindClaimsApart: a merge's own claims valued by apartClaims (one walk,
// rows kept apart for the batch; a matrix that is not a compiled circuit by its
// bilinear form) get the true values, and the batch that consumes those rows makes
// the same transcript as BatchKindClaims on the claims as given, on one and two
// workers, whether the other claims' rows are kept between the phases or walked
// again.
func TestBatchKindClaimsApart(t *testing.T) {
	r := testrand.New(t)
	cs := []*circuit.Circuit{squareLayout(12).compile(), circuit.BLAKE2s(), squareLayout(14).compile(), squareLayout(13).compile()}
	claims := [][]MatrixClaim{trueClaims(r, cs[0], 2), trueClaims(r, cs[1], 1), trueClaims(r, cs[2], 3), trueClaims(r, cs[3], 2)}
	ms := make([]Matrices, len(cs))
	for k, c := range cs {
		ms[k] = c
	}
	ms[3] = hiddenCircuit{cs[3]}
	// Own claims: the first of circuits 0, 2 and 3 (none of circuit 1).
	ownOf := []int{1, 0, 1, 1}
	oldLog, oldBytes := storedRowsLog, bigRowsBytes
	defer func() { storedRowsLog, bigRowsBytes = oldLog, oldBytes }()
	for _, keep := range []struct{ log, bytes int }{{oldLog, oldBytes}, {12, 24 << 14}} {
		storedRowsLog, bigRowsBytes = keep.log, keep.bytes
		for _, k := range []int{1, 2} {
			w := par.New(nil, k)
			send := func(p *transcript.Prover, own [][]MatrixClaim) {
				for _, cl := range own {
					for _, c := range cl {
						p.Send(c.VA)
						p.Send(c.VB)
					}
				}
			}
			want := transcript.NewProver(claimsLabel, nil)
			send(want, [][]MatrixClaim{claims[0][:1], nil, claims[2][:1], claims[3][:1]})
			if _, err := BatchKindClaims(want, ms, claims, nil, nil, w); err != nil {
				t.Fatal(err)
			}
			// Under buffers.Poison too: the row and column vectors the batch
			// allocates uncleared must be written in full before they are read.
			for _, poisoned := range []bool{false, true} {
				restore := func() {}
				if poisoned {
					restore = buffers.Poison(0xe7)
				}
				own := make([][]MatrixClaim, len(cs))
				for i, n := range ownOf {
					for _, c := range claims[i][:n] {
						own[i] = append(own[i], MatrixClaim{Row: c.Row, Col: c.Col})
					}
				}
				apart, err := apartClaims(ms, own, w)
				if err != nil {
					t.Fatal(err)
				}
				for i, cl := range own {
					for j, c := range cl {
						if c.VA != claims[i][j].VA || c.VB != claims[i][j].VB {
							t.Fatalf("keep 2^%d/%d B, %d workers, poisoned %v: circuit %d's own claim %d: wrong values", keep.log, keep.bytes, k, poisoned, i, j)
						}
					}
				}
				if apart[3][0] != nil || apart[0][0] == nil {
					t.Fatalf("the hidden circuit walked apart, or a circuit not")
				}
				got := transcript.NewProver(claimsLabel, nil)
				send(got, own)
				all := make([][]MatrixClaim, len(cs))
				for i := range all {
					all[i] = append(own[i], claims[i][ownOf[i]:]...)
				}
				if _, err := batchKindClaims(got, ms, all, apart, nil, nil, w); err != nil {
					t.Fatal(err)
				}
				restore()
				if !slices.Equal(got.Proof().MarshalRaw(), want.Proof().MarshalRaw()) {
					t.Fatalf("keep 2^%d/%d B, %d workers, poisoned %v: the transcripts differ", keep.log, keep.bytes, k, poisoned)
				}
			}
		}
	}
	// The small setting keeps one claim above 2^12 rows and walks the others again.
	storedRowsLog, bigRowsBytes = 12, 24<<14
	var logs []int
	for k, cl := range claims {
		for range cl {
			logs = append(logs, cs[k].LogSize())
		}
	}
	kept, again := 0, 0
	for t, keep := range keepRows(logs) {
		if logs[t] > 12 {
			if keep {
				kept++
			} else {
				again++
			}
		}
	}
	if kept == 0 || again == 0 {
		t.Fatalf("the small setting keeps %d claims above 2^12 rows and walks %d again", kept, again)
	}
}
