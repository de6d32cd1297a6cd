package recursion

import (
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/leanpipe/leanpipe/xmss"
)

// The carried hints of a merged child (two 2-signer leaves) as kinds: each public
// table's and each relation matrix's bilinear form at random points is the value the
// native check computes (carriedValue; γ = 1 for the weights), and claims on all of
// them batch at one point where each kind's native value holds.
func TestHintKinds(t *testing.T) {
	r := testrand.New(t)
	children := []ChildInfo{{N: 2, LogInvRate: 2}, {N: 2, LogInvRate: 2}}
	m, err := blankMerged(xmss.Message{}, 0, placeholderKeys(4), 2, children, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := newNRSub(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, places, _, _, err := flows.SegmentsLayout(sub.shapes, 2, sub.statement)
	if err != nil {
		t.Fatal(err)
	}
	rnd := func(n int) []field.E {
		v := make([]field.E, n)
		for i := range v {
			v[i] = randEOf(r)
		}
		return v
	}
	var kinds []Matrices
	var logs []int
	var claims [][]MatrixClaim
	add := func(k *sparseKind, row, col []field.E, want field.E) {
		t.Helper()
		c := MatrixClaim{Row: EqWeight(padTo(row, k.LogSize(), field.E{})), Col: EqWeight(padTo(col, k.LogSize(), field.E{})), VA: want}
		if err := CheckMatrixClaim(k, c); err != nil {
			t.Fatalf("%s: the kind's value is not the native one", k.Name())
		}
		kinds, logs, claims = append(kinds, k), append(logs, k.LogSize()), append(claims, []MatrixClaim{c})
	}
	index, _ := hintPoints(sub.keptHints())
	for i, h := range sub.keptHints() {
		if h.Kind != HintSegmentPublic {
			continue
		}
		tab, ok := sub.shapes[h.Of].Public.(*lincheck.Table)
		if !ok {
			t.Fatalf("segment %d's public term is a %T", h.Of, sub.shapes[h.Of].Public)
		}
		slotBits := sub.pointLens[index[i]] - tab.Window().Log
		k, err := publicKind("public", tab, slotBits)
		if err != nil {
			t.Fatal(err)
		}
		tau, chi := rnd(tab.Window().Log), rnd(slotBits)
		add(k, chi, tau, tab.Eval(tau, chi))
	}
	n := 0
	for 1<<n < len(sub.ev.Relations)+copiesCount(sub.ev) {
		n++
	}
	for j := range sub.shapes {
		vars := places[j].Variables
		k, err := relationKind("relations", sub.ev, j, vars)
		if err != nil {
			t.Fatal(err)
		}
		tau, rho := rnd(n), rnd(vars)
		want, err := relationWeight(sub.ev, j, append(append(append([]field.E(nil), tau...), field.One), rho...), vars)
		if err != nil {
			t.Fatal(err)
		}
		add(k, tau, rho, want)
	}
	p := transcript.NewProver(claimsLabel, nil)
	got, err := BatchKindClaims(p, kinds, claims, nil, nil, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	withB := p.Proof()
	v := transcript.NewVerifier(withB, claimsLabel, nil)
	out, err := VerifyKindClaims(v, logs, claims, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range kinds {
		if got.VA[i] != out.VA[i] {
			t.Fatalf("kind %d: prover and verifier disagree", i)
		}
		if err := CheckMatrixClaim(k.(*sparseKind), out.claim(i, logs[i], out.VB[i])); err != nil {
			t.Fatalf("kind %d's batched claim: %v", i, err)
		}
	}
	// Marked as kinds whose B0 is zero, the batch sends no B0 value and verifies the
	// same; a wrong A0 value is still refused.
	zero := make([]bool, len(kinds))
	for i := range zero {
		zero[i] = true
	}
	p = transcript.NewProver(claimsLabel, nil)
	got, err = BatchKindClaims(p, kinds, claims, nil, zero, par.New(nil, 2))
	if err != nil || len(got.VB) != 0 {
		t.Fatalf("zero B0s: %d B0 values, %v", len(got.VB), err)
	}
	proof := p.Proof()
	if len(proof.Stream) != len(withB.Stream)-len(kinds) {
		t.Fatalf("zero B0s: %d values sent, %d with B0s", len(proof.Stream), len(withB.Stream))
	}
	out, err = VerifyKindClaims(transcript.NewVerifier(proof, claimsLabel, nil), logs, claims, nil, zero)
	if err != nil || len(out.VB) != 0 || !slices.Equal(out.VA, got.VA) {
		t.Fatalf("zero B0s: %v", err)
	}
	bad := slices.Clone(claims[0])
	bad[0].VA = bad[0].VA.Add(field.One)
	lie := append([][]MatrixClaim{bad}, claims[1:]...)
	p = transcript.NewProver(claimsLabel, nil)
	if _, err := BatchKindClaims(p, kinds, lie, nil, zero, par.New(nil, 2)); err == nil {
		if out, err := VerifyKindClaims(transcript.NewVerifier(p.Proof(), claimsLabel, nil), logs, lie, nil, zero); err == nil {
			if CheckMatrixClaim(kinds[0].(*sparseKind), out.claim(0, logs[0], field.E{})) == nil {
				t.Fatal("zero B0s: a false claim batched to a true output")
			}
		}
	}
	t.Logf("%d kinds (sizes 2^%v) batched at one point of %d coordinates", len(kinds), logs, 2*len(out.RRow))
}

func copiesCount(ev *flows.Evaluations) int {
	n := 0
	for _, c := range ev.Copies {
		n += len(c.FromWords)
	}
	return n
}
