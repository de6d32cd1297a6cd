package recursion

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// randomSparse is a matrix of 2^rb rows and 2^cb columns with up to three random
// entries a row.
func randomSparse(r *rand.Rand, name string, rb, cb int) *sparseKind {
	b := newSparse(name, 1<<rb, 1<<cb)
	for range 1 << rb {
		var cols []int32
		var coeffs []field.E
		for range r.IntN(4) {
			cols, coeffs = append(cols, int32(r.IntN(1<<cb))), append(coeffs, randomE(r))
		}
		b.row(cols, coeffs)
	}
	return b.done()
}

// roleFixture is two role tables over three matrices of different sizes, and claims
// on them: at a matrix's own address (a hint's claim) and at a random address point
// (a lifted table's), each with its true value.
func roleFixture(r *rand.Rand) ([]nrKind, []roleClaim) {
	m0, m1, m2 := randomSparse(r, "m0", 6, 5), randomSparse(r, "m1", 7, 7), randomSparse(r, "m2", 8, 6)
	a := &roleKind{role: "a", logSize: 8, addrBits: 4, mats: []*sparseKind{m0, m1, m2},
		entries: []roleEntry{{3, 0}, {5, 1}, {6, 0}, {9, 2}}}
	b := &roleKind{role: "b", logSize: 7, addrBits: 4, mats: []*sparseKind{m1}, entries: []roleEntry{{1, 0}}}
	kinds := []nrKind{{blockKey(a), a}, {blockKey(b), b}}
	point := func(n int) []field.E { return randomPoint(r, n) }
	var claims []roleClaim
	add := func(kind int, addr []field.E) {
		rk := kinds[kind].block.(*roleKind)
		c := MatrixClaim{Row: EqWeight(point(rk.logSize)), Col: EqWeight(point(rk.logSize))}
		c.VA, _ = rk.at(addr).BilinearTensor(c.Row, c.Col)
		claims = append(claims, roleClaim{Kind: kind, Addr: addr, Claim: c})
	}
	add(0, roleDigitPoint(5, 4, nil, 4, field.E{}, field.One))
	add(0, point(4))
	add(0, roleDigitPoint(1, 2, point(2), 4, field.E{}, field.One))
	add(1, roleDigitPoint(1, 4, nil, 4, field.E{}, field.One))
	add(1, point(4))
	return kinds, claims
}

// TestRoleAddressBatch: the role claims' address batch proves and verifies, its
// values are each role table at the output point with the claim's weights (what the
// kinds' batch then takes), and a changed claim value, a claim at another address,
// swapped values, a changed round polynomial or output value are refused.
func TestRoleAddressBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	kinds, claims := roleFixture(r)
	p := transcript.NewProver(claimsLabel, nil)
	rAddr, vals := proveRoles(p, kinds, claims, 4, par.New(nil, 2))
	proof := p.Proof()
	verify := func(proof *transcript.Proof, claims []roleClaim) ([]field.E, []field.E, error) {
		v := transcript.NewVerifier(proof, claimsLabel, nil)
		ra, vs, err := verifyRoles(v, claims, 4)
		if err == nil {
			err = v.Finish()
		}
		return ra, vs, err
	}
	ra, vs, err := verify(proof, claims)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ra, rAddr) || !slices.Equal(vs, vals) {
		t.Fatal("prover and verifier disagree on the output")
	}
	for i, c := range claims {
		want, _ := kinds[c.Kind].block.(*roleKind).at(ra).BilinearTensor(c.Claim.Row, c.Claim.Col)
		if vs[i] != want {
			t.Fatalf("claim %d: value %v at the address point, its role table %v", i, vs[i], want)
		}
	}
	edit := func(i int, f func(*roleClaim)) []roleClaim {
		out := slices.Clone(claims)
		f(&out[i])
		return out
	}
	cases := []struct {
		name   string
		proof  *transcript.Proof
		claims []roleClaim
	}{
		{"a claim's value", proof, edit(1, func(c *roleClaim) { c.Claim.VA = c.Claim.VA.Add(field.One) })},
		{"a hint's claim at another address", proof, edit(0, func(c *roleClaim) { c.Addr = roleDigitPoint(6, 4, nil, 4, field.E{}, field.One) })},
		{"two claims' values swapped", proof, edit(1, func(c *roleClaim) { c.Claim.VA = claims[2].Claim.VA })},
	}
	for _, k := range []int{0, 3 * 4, len(proof.Stream) - 1} {
		bad := &transcript.Proof{Stream: slices.Clone(proof.Stream)}
		bad.Stream[k] = bad.Stream[k].Add(field.One)
		cases = append(cases, struct {
			name   string
			proof  *transcript.Proof
			claims []roleClaim
		}{"stream value changed", bad, claims})
	}
	for _, c := range cases {
		ra, vs, err := verify(c.proof, c.claims)
		if err == nil {
			t.Fatalf("%s: accepted (address point %v, values %v)", c.name, ra, vs)
		}
		if !errors.Is(err, ErrBatch) && c.proof == proof {
			t.Fatalf("%s: %v, want ErrBatch", c.name, err)
		}
	}
}

// TestRoleKindsLift: a node's role table holds each merged child's own matrices at
// the child's own digit and the child's table under its subtree's digit, so that a
// claim on the child's table at (a, row, col) is the same claim on the parent's at
// (digit, a, zeros).
func TestRoleKindsLift(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	m0, m1, m2 := randomSparse(r, "x", 6, 6), randomSparse(r, "x", 7, 5), randomSparse(r, "x", 5, 7)
	// A child of two merged children (its table: child 0's own matrix at 3, child
	// 1's at 4; nothing under their subtrees), then its parent of two children: the
	// first this child, the second a child with no merged children.
	grand := &nrSub{hk: []hintKind{{mat: m0}}}
	grand2 := &nrSub{hk: []hintKind{{mat: m1}}}
	childRoles, err := roleKinds([]*nrSub{grand, grand2})
	if err != nil || len(childRoles) != 1 {
		t.Fatalf("%v, %d roles", err, len(childRoles))
	}
	cr := childRoles[0]
	if cr.addrBits != 3 || !slices.Equal(cr.entries, []roleEntry{{3, 0}, {4, 1}}) {
		t.Fatalf("child table: %d bits, entries %v", cr.addrBits, cr.entries)
	}
	child := &nrSub{hk: []hintKind{{mat: m2}}, kinds: []nrKind{{blockKey(cr), cr}}}
	leafMerge := &nrSub{hk: []hintKind{{mat: m1}}}
	roles, err := roleKinds([]*nrSub{child, leafMerge})
	if err != nil || len(roles) != 1 {
		t.Fatalf("%v, %d roles", err, len(roles))
	}
	pr := roles[0]
	w := roleBits(2)
	if pr.addrBits != w+3 || pr.logSize != 7 {
		t.Fatalf("parent table: %d address bits, 2^%d", pr.addrBits, pr.logSize)
	}
	point := func(n int) []field.E { return randomPoint(r, n) }
	for range 4 {
		a, row, col := point(cr.addrBits), point(cr.logSize), point(cr.logSize)
		want, _ := cr.at(a).BilinearTensor(EqWeight(row), EqWeight(col))
		lifted := roleDigitPoint(1, w, a, pr.addrBits, field.E{}, field.One)
		got, _ := pr.at(lifted).BilinearTensor(EqWeight(padTo(row, pr.logSize, field.E{})), EqWeight(padTo(col, pr.logSize, field.E{})))
		if got != want {
			t.Fatal("the child's table lifted under its digit differs")
		}
		// Each child's own matrix sits at its own digit.
		for c, m := range []*sparseKind{m2, m1} {
			own := roleDigitPoint(2+1+c, w, nil, pr.addrBits, field.E{}, field.One)
			rr, cc := point(pr.logSize), point(pr.logSize)
			got, _ := pr.at(own).BilinearTensor(EqWeight(rr), EqWeight(cc))
			want, _ := m.BilinearTensor(EqWeight(rr), EqWeight(cc))
			if got != want {
				t.Fatalf("child %d's own matrix is not at its own digit", c)
			}
		}
	}
	// The parent's address 0 (its own) is empty: a node never needs its own matrices.
	if pr.entries[0].addr == 0 {
		t.Fatal("the parent's table has an entry at its own address")
	}
}
