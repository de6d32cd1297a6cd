package recursion

import (
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
	got, err := BatchKindClaims(p, kinds, claims, nil, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewVerifier(p.Proof(), claimsLabel, nil)
	out, err := VerifyKindClaims(v, logs, claims, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range kinds {
		if got.VA[i] != out.VA[i] {
			t.Fatalf("kind %d: prover and verifier disagree", i)
		}
		if err := CheckMatrixClaim(k.(*sparseKind), out.claim(i, logs[i])); err != nil {
			t.Fatalf("kind %d's batched claim: %v", i, err)
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
