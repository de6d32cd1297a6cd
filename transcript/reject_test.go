package transcript

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
)

// The mini protocol of these tests: the prover sends a padded tree's root (rows of
// miniRow words, leaf images miniLeaf wide), the verifier samples miniQueries
// positions and the prover opens them; then it sends one scalar, grinds miniBits and
// sends a last scalar.
const (
	miniLeaves  = 16
	miniRow     = 3
	miniLeaf    = 10
	miniQueries = 5
	miniBits    = 8
)

var miniLabel = []byte("reject-test")

// Stream positions of the mini protocol.
const (
	miniRootAt  = 0 // two scalars
	miniXAt     = 2
	miniNonceAt = 3
	miniYAt     = 4
	miniLen     = 5
)

func miniProve(t *testing.T, rows []uint64) *Proof {
	t.Helper()
	tree := merkle.NewPadded(nil, rows, len(rows)/miniLeaves, miniLeaf, par.Serial())
	p := NewProver(miniLabel, nil)
	p.SendDigest(tree.Root())
	p.Open(tree, p.SampleQueries(miniLeaves, miniQueries))
	p.Send(field.E{C0: 7, C1: 8, C2: 9})
	p.Grind(miniBits)
	p.Send(field.E{C0: 10})
	return p.Proof()
}

func miniVerify(proof *Proof) error {
	v := NewVerifier(proof, miniLabel, nil)
	root, err := v.ReceiveDigest()
	if err != nil {
		return err
	}
	if _, err := v.MerklePadded(root, miniLeaves, v.SampleQueries(miniLeaves, miniQueries), miniRow, miniLeaf); err != nil {
		return err
	}
	if _, err := v.Receive(); err != nil {
		return err
	}
	if err := v.GrindCheck(miniBits); err != nil {
		return err
	}
	if _, err := v.Receive(); err != nil {
		return err
	}
	return v.Finish()
}

// forms returns deep copies of proof in raw form (no phases) and wire form (no
// openings).
func forms(p *Proof) (raw, wire *Proof) {
	raw = &Proof{Stream: slices.Clone(p.Stream)}
	for _, o := range p.Openings {
		raw.Openings = append(raw.Openings, merkle.RawOpening{Leaf: slices.Clone(o.Leaf), Path: slices.Clone(o.Path)})
	}
	wire = &Proof{Stream: slices.Clone(p.Stream), Phases: []merkle.Phase{}}
	for _, ph := range p.Phases {
		rows := make([][]uint64, len(ph.Rows))
		for i, r := range ph.Rows {
			rows[i] = slices.Clone(r)
		}
		wire.Phases = append(wire.Phases, merkle.Phase{Rows: rows, Siblings: slices.Clone(ph.Siblings)})
	}
	return raw, wire
}

func wantReject(t *testing.T, what string, err, sentinel error, text string) {
	t.Helper()
	if !errors.Is(err, sentinel) || !strings.Contains(err.Error(), text) {
		t.Errorf("%s: err = %v, want %v with %q", what, err, sentinel, text)
	}
}

// failingNonce returns a nonce other than n that fails miniBits of proof-of-work at
// proof's state before its nonce.
func failingNonce(t *testing.T, proof *Proof, n field.E) field.E {
	t.Helper()
	base := powBaseAfter(t, proof)
	for k := field.K(1); ; k++ {
		if c := (field.E{C0: n.C0 ^ k, C1: n.C1, C2: n.C2}); !powOK(base, c, miniBits) {
			return c
		}
	}
}

// TestVerifierRejectReasons forges each value the transcript verifier checks, in both
// forms, and requires the check guarding it to reject it (matched by sentinel and
// message): the scalar stream's length, the root's encoding, the grinding nonce, each
// Merkle opening's row, sibling, width, path length, position and zero prefix, and
// what is left over at the end.
func TestVerifierRejectReasons(t *testing.T) {
	rng := testrand.New(t)
	rows := make([]uint64, miniLeaves*miniRow)
	for i := range rows {
		rows[i] = rng.Uint64()
	}
	honest := miniProve(t, rows)
	if len(honest.Stream) != miniLen || len(honest.Openings) != miniQueries || len(honest.Phases) != 1 {
		t.Fatalf("mini proof: %d scalars, %d openings, %d phases", len(honest.Stream), len(honest.Openings), len(honest.Phases))
	}
	raw, wire := forms(honest)
	for name, p := range map[string]*Proof{"raw": raw, "wire": wire} {
		if err := miniVerify(p); err != nil {
			t.Fatalf("honest %s proof: %v", name, err)
		}
	}

	// The stream, in both forms.
	for _, form := range []string{"raw", "wire"} {
		fresh := func() *Proof {
			r, w := forms(honest)
			if form == "raw" {
				return r
			}
			return w
		}
		for cut := 0; cut < miniLen; cut++ {
			p := fresh()
			p.Stream = p.Stream[:cut]
			text := fmt.Sprintf("after %d scalars", cut)
			if cut < 2 {
				text = fmt.Sprintf("2 scalars wanted, %d left", cut)
			}
			wantReject(t, fmt.Sprintf("%s: stream cut to %d scalars", form, cut), miniVerify(p), ErrStreamExhausted, text)
		}
		p := fresh()
		p.Stream[miniRootAt+1].C2 = 1
		wantReject(t, form+": root half with c2 ≠ 0", miniVerify(p), ErrNonCanonical, "digest half 1")

		p = fresh()
		p.Stream[miniNonceAt] = failingNonce(t, p, p.Stream[miniNonceAt])
		wantReject(t, form+": forged grinding nonce", miniVerify(p), ErrPow, fmt.Sprintf("%d bits at scalar %d", miniBits, miniNonceAt))

		// A value bound before the nonce moves the proof-of-work base: the honest nonce
		// then fails (unless it passes the new base by chance, which powOK tells).
		p = fresh()
		p.Stream[miniXAt].C1 ^= 1
		if !powOK(powBaseAfter(t, p), p.Stream[miniNonceAt], miniBits) {
			wantReject(t, form+": forged scalar before the nonce", miniVerify(p), ErrPow, "bits at scalar")
		}

		p = fresh()
		p.Stream = append(p.Stream, field.One)
		wantReject(t, form+": an extra scalar", miniVerify(p), ErrNotConsumed, "5 of 6 scalars")
	}

	// Raw openings.
	type rawCase struct {
		name, text string
		sentinel   error
		forge      func(p *Proof)
	}
	for _, c := range []rawCase{
		{"forged root", "root mismatch at query", ErrInvalidOpening, func(p *Proof) { p.Stream[miniRootAt].C0 ^= 1 }},
		{"forged row word", "root mismatch at query", ErrInvalidOpening, func(p *Proof) { p.Openings[2].Leaf[miniLeaf-1] ^= 1 }},
		{"forged sibling", "root mismatch at query", ErrInvalidOpening, func(p *Proof) { p.Openings[2].Path[3][0] ^= 1 }},
		{"junk in the zero prefix", "zero prefix", ErrInvalidOpening, func(p *Proof) { p.Openings[1].Leaf[0] = 5 }},
		{"short row", "opened row has 9 words, want 10", ErrInvalidOpening, func(p *Proof) { p.Openings[0].Leaf = p.Openings[0].Leaf[1:] }},
		{"short path", "path of 3 siblings, want 4", ErrInvalidOpening, func(p *Proof) { p.Openings[4].Path = p.Openings[4].Path[:3] }},
		{"missing opening", "opening 4", ErrMissingOpening, func(p *Proof) { p.Openings = p.Openings[:4] }},
		{"extra opening", "5 of 6 openings", ErrNotConsumed, func(p *Proof) { p.Openings = append(p.Openings, p.Openings[0]) }},
		{"opening of another position", "root mismatch at query", ErrInvalidOpening, func(p *Proof) {
			// A valid opening, of a position the verifier did not sample.
			tree := merkle.NewPadded(nil, rows, miniRow, miniLeaf, par.Serial())
			q := queriesOf(t, honest)
			other := (q[0] + 1) % miniLeaves
			p.Openings[0] = tree.OpenRaw([]int{other})[0]
		}},
	} {
		p, _ := forms(honest)
		c.forge(p)
		wantReject(t, "raw: "+c.name, miniVerify(p), c.sentinel, c.text)
	}

	// Wire phases.
	for _, c := range []rawCase{
		{"forged row word", "root mismatch", ErrInvalidOpening, func(p *Proof) { p.Phases[0].Rows[1][0] ^= 1 }},
		{"forged sibling", "root mismatch", ErrInvalidOpening, func(p *Proof) { p.Phases[0].Siblings[0][31] ^= 1 }},
		{"missing sibling", "too few siblings", ErrInvalidOpening, func(p *Proof) { p.Phases[0].Siblings = p.Phases[0].Siblings[1:] }},
		{"row of the leaf's width", "phase row 0 has 10 words, want 3", ErrInvalidOpening, func(p *Proof) {
			p.Phases[0].Rows[0] = append(make([]uint64, miniLeaf-miniRow), p.Phases[0].Rows[0]...)
		}},
		{"missing phase", "phase 0", ErrMissingOpening, func(p *Proof) { p.Phases = p.Phases[:0] }},
		{"extra phase", "1 of 2 openings", ErrNotConsumed, func(p *Proof) { p.Phases = append(p.Phases, p.Phases[0]) }},
		{"rows of other positions", "root mismatch", ErrInvalidOpening, func(p *Proof) {
			tree := merkle.NewPadded(nil, rows, miniRow, miniLeaf, par.Serial())
			q := queriesOf(t, honest)
			other := 0
			for slices.Contains(q, other) {
				other++
			}
			moved := slices.Clone(q)
			for i := range moved {
				if moved[i] == q[0] {
					moved[i] = other
				}
			}
			// The verifier places the rows at its own sampled positions: rows read
			// elsewhere (same count, honest siblings) do not hash to the root.
			p.Phases[0].Rows = tree.OpenPhase(moved).Rows
		}},
	} {
		_, p := forms(honest)
		c.forge(p)
		wantReject(t, "wire: "+c.name, miniVerify(p), c.sentinel, c.text)
	}
}

// TestForgedRootRejected: openings checked against another root than the one they
// were made under are rejected by the root comparison, in both forms (the queries held
// fixed, so that nothing but the root differs).
func TestForgedRootRejected(t *testing.T) {
	rows := make([]uint64, miniLeaves*miniRow)
	for i := range rows {
		rows[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	honest := miniProve(t, rows)
	q := queriesOf(t, honest)
	root, err := ScalarsDigest([2]field.E{honest.Stream[0], honest.Stream[1]})
	if err != nil {
		t.Fatal(err)
	}
	forged := root
	forged[5] ^= 1
	raw, wire := forms(honest)
	for name, p := range map[string]*Proof{"raw": raw, "wire": wire} {
		if _, err := NewVerifier(p, miniLabel, nil).MerklePadded(root, miniLeaves, q, miniRow, miniLeaf); err != nil {
			t.Fatalf("%s: honest root: %v", name, err)
		}
		_, err := NewVerifier(p, miniLabel, nil).MerklePadded(forged, miniLeaves, q, miniRow, miniLeaf)
		wantReject(t, name+": forged root", err, ErrInvalidOpening, "root mismatch")
	}
}

// queriesOf replays the mini protocol's query sampling.
func queriesOf(t *testing.T, proof *Proof) []int {
	t.Helper()
	v := NewVerifier(proof, miniLabel, nil)
	if _, err := v.ReceiveDigest(); err != nil {
		t.Fatal(err)
	}
	return v.SampleQueries(miniLeaves, miniQueries)
}

// powBaseAfter replays proof up to its nonce and returns the proof-of-work base there.
func powBaseAfter(t *testing.T, proof *Proof) [4]uint64 {
	t.Helper()
	v := NewVerifier(&Proof{Stream: proof.Stream, Openings: proof.Openings, Phases: proof.Phases}, miniLabel, nil)
	root, err := v.ReceiveDigest()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.MerklePadded(root, miniLeaves, v.SampleQueries(miniLeaves, miniQueries), miniRow, miniLeaf); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Receive(); err != nil {
		t.Fatal(err)
	}
	return v.fs.powBase()
}

// TestRawPrefixMustBeZero: a raw opening of a padded tree whose leaf image has a
// nonzero word in its zero prefix is rejected by that check even when the image
// authenticates (the tree was built over it), while the wire form of the same tree's
// opening is rejected for its width: the forms accept the same proofs.
func TestRawPrefixMustBeZero(t *testing.T) {
	rng := testrand.New(t)
	images := make([]uint64, miniLeaves*miniLeaf)
	for i := range images {
		images[i] = rng.Uint64()
	}
	proof := miniProve(t, images) // a tree over full images: junk where zeros belong
	raw, wire := forms(proof)
	wantReject(t, "raw", miniVerify(raw), ErrInvalidOpening, "nonzero word in its 7-word zero prefix")
	wantReject(t, "wire", miniVerify(wire), ErrInvalidOpening, "has 10 words, want 3")
}

// TestMerkleArgumentChecks: the verifier's own arguments (the protocol's, not the
// proof's) are checked too: a block length that is not a power of two, rows wider than
// their leaves, a query outside the block.
func TestMerkleArgumentChecks(t *testing.T) {
	p := miniProve(t, make([]uint64, miniLeaves*miniRow))
	raw, _ := forms(p)
	v := NewVerifier(raw, miniLabel, nil)
	_, err := v.MerklePadded(merkle.Digest{}, 12, []int{0}, miniRow, miniLeaf)
	wantReject(t, "block length 12", err, ErrInvalidOpening, "block length 12 is not a power of two")
	_, err = v.MerklePadded(merkle.Digest{}, miniLeaves, []int{0}, miniLeaf+1, miniLeaf)
	wantReject(t, "rows wider than leaves", err, ErrInvalidOpening, "rows of 11 words in leaves of 10")
	_, err = v.MerklePadded(merkle.Digest{}, miniLeaves, []int{miniLeaves}, miniRow, miniLeaf)
	wantReject(t, "query past the block", err, ErrInvalidOpening, "query 16 outside [0, 16)")
	// A digest cut short, and a nonce missing.
	v = NewVerifier(&Proof{Stream: []field.E{{}}}, nil, nil)
	_, err = v.ReceiveDigest()
	wantReject(t, "digest of one scalar", err, ErrStreamExhausted, "2 scalars wanted, 1 left")
	v = NewVerifier(&Proof{}, nil, nil)
	wantReject(t, "missing nonce", v.GrindCheck(4), ErrStreamExhausted, "after 0 scalars")
}
