package recursion

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/leanpipe/leanpipe/xmss"
)

// Red-team forgeries of no-reveal merges (issue 22), written by someone other than
// the merge's author, for what the other forging tests (depth_forge_test.go,
// digest_forge_test.go, role_forge_test.go, tape_forge_test.go, cut_test.go) do not
// try: a child proof used twice under one statement, a query-group cut the prover
// picks itself, and files and statements built to make the reader or the verifier
// panic or run away. Each forged merge is asserted rejected; where a rejection rests
// on one check, the test also shows that the forgery is otherwise whole, so that the
// test fails if that check goes.

// TestRedTeamChildReusedTwice: a prover merges one merged child twice — [m1, m1, leaf]
// under a statement that lists m1's keys twice — with the children's true traces
// throughout, so every relation of the verifier's layout holds. Such a proof would
// count every signer of m1 twice. The honest prover cannot finish it (the batch's key
// table refuses a repeated key), so the forger proves the batch on a key table it
// builds itself (rawKeyTable). The control: the forgery passes every step of Verify
// but the two refusals of a repeated key (Verify's own, and the key table's, which
// verifyBatchTraced reads); with both, it is refused, by Verify and through the file.
func TestRedTeamChildReusedTwice(t *testing.T) {
	fx := depthFixtureOf(t)
	var m *MergedNR
	reuse := nrForge{
		extract: func(i int, mm *MergedNR) (*childExtract, []TranscriptRun, *nrSub, error) {
			if i == 1 {
				mm = fx.m1
			}
			return extractSub(mm, nil)
		},
		statement: func(s *MergedNR) {
			m = s
			s.Keys = slices.Concat(fx.m1.Keys, fx.m1.Keys, s.Keys[len(fx.m1.Keys)+len(fx.m2.Keys):])
		},
	}
	res, err := forgeNR(fx.children, 2, reuse)
	if err == nil {
		// The prover made the whole proof: its batch took a repeated key.
		m = res.m
	} else if m == nil || m.Proof == nil || !strings.Contains(err.Error(), "repeats public key") {
		t.Fatalf("the forging prover stopped before its batch: %v", err)
	} else {
		t.Logf("the honest batch refuses the statement (%v): the forger batches on its own key table", err)
		if m.Batch, err = batchOnRawKeys(m, true); err != nil {
			t.Fatalf("the forger's batch: %v", err)
		}
	}
	if len(res.broken) != 0 {
		t.Fatalf("the reused child's witness breaks %q: the forgery is not whole", res.broken)
	}
	if !slices.Equal(m.Keys[:8], m.Keys[8:16]) || m.Subs[1] == nil {
		t.Fatal("the forged statement does not list child m1 twice")
	}
	if _, err := batchOnRawKeys(m, false); err != nil {
		t.Fatalf("the control: the forgery fails a check other than the repeated key's: %v", err)
	}
	err = mustReject(t, "m1 merged twice", m)
	if !strings.Contains(err.Error(), "repeated key") {
		t.Errorf("rejected for %v, want the repeated key named", err)
	}
	st := m.Statement()
	if err := noPanic(func() error { return VerifyMergedNR(m.ProofBytes(), st) }); err == nil {
		t.Fatal("the file of m1 merged twice verified")
	} else {
		t.Logf("the file: %v", err)
	}
}

// rawKeyTable is m's merged key table built from its keys as they are, a repeated key
// included (KeyTableOf reads them through the statement's JSON, which refuses one).
func rawKeyTable(m *MergedNR) KeyTable {
	ag := aggregate.Aggregate{Message: m.Message, Epoch: m.Epoch, PublicKeys: m.Keys}
	return KeyTable{T: ag.PublicTable(), SlotBits: max(3, bits.Len(uint(len(m.Keys)-1)))}
}

// batchOnRawKeys proves (prove) or checks m's batch as proveBatch and Verify do, on
// rawKeyTable: checking, it replays m's segments, its batch and every native check,
// skipping only Verify's refusal of a repeated key.
func batchOnRawKeys(m *MergedNR, prove bool) (*transcript.Proof, error) {
	l, subs, err := m.layout()
	if err != nil {
		return nil, err
	}
	shapes := l.shapes()
	_, _, _, start, err := flows.SegmentsLayout(shapes, m.LogInvRate, m.statementBytes())
	if err != nil {
		return nil, err
	}
	kt := rawKeyTable(m)
	mats, keys, err := m.carriedClaims(kt.T.W.Log)
	if err != nil {
		return nil, err
	}
	if prove {
		terms, err := flows.SegmentsTerminals(m.Proof, MergeLabelNR, m.statementBytes(), shapes, m.LogInvRate)
		if err != nil {
			return nil, err
		}
		tr := transcript.NewProver([]byte(MergeBatchLabelNR), nil)
		tr.AbsorbBytes(start)
		if _, _, err := BatchKeyClaims(tr, kt, keys); err != nil {
			return nil, err
		}
		if _, err := proveBlocks(tr, l, subs, mats, terms, nil, par.New(nil, 2)); err != nil {
			return nil, err
		}
		return tr.Proof(), nil
	}
	ev := &flows.Evaluations{Relations: l.rels, DeferTerminals: true}
	seg, err := flows.VerifySegmentsTraced(m.Proof, MergeLabelNR, m.statementBytes(), shapes, ev, m.LogInvRate, nil)
	if err != nil {
		return nil, fmt.Errorf("the segments: %w", err)
	}
	tr := transcript.NewVerifier(m.Batch, []byte(MergeBatchLabelNR), nil)
	tr.AbsorbBytes(start)
	b := &nrBatched{kt: kt}
	if b.keyPoint, b.keyValue, err = VerifyKeyClaims(tr, kt.T.W.Log, kt.SlotBits, keys); err != nil {
		return nil, fmt.Errorf("the key claims: %w", err)
	}
	if b.kinds, b.blocks, err = verifyBlocks(tr, l, subs, mats, seg.Terminals); err != nil {
		return nil, fmt.Errorf("the block claims: %w", err)
	}
	if err := tr.Finish(); err != nil {
		return nil, fmt.Errorf("the batch: %w", err)
	}
	return nil, flows.StartChecks(b.checks())()
}

// TestRedTeamProverChosenCut: the query-group cut is the verifier's to derive from the
// children's shapes (splitPlan). A prover that cuts a group the verifier keeps whole —
// two 3-signer leaves, whose 90-block level-1 group fits 2^23 uncut — proves a layout
// the verifier does not build, and is refused. The control: the same proof verifies
// when the verifier is made to derive the prover's plan, so the refusal is the
// derivation's.
func TestRedTeamProverChosenCut(t *testing.T) {
	skipProofs(t, "proves a 2→1 merge of 3-signer leaves")
	infos := []ChildInfo{{3, 2}, {3, 2}}
	blank, err := blankMerged(xmss.Message{}, 0, placeholderKeys(6), 2, infos, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := blank.layout()
	if err != nil {
		t.Fatal(err)
	}
	key := layoutKey(infos, func(int) *MergedChildNR { return nil })
	v, ok := splitPlans.Load(key)
	if !ok {
		t.Fatal("no plan kept for the layout's shape")
	}
	own := v.([]bool)
	forced := make([]bool, len(l.groups))
	for k, g := range l.groups {
		if own[k] {
			t.Fatalf("the verifier cuts group %d of two 3-signer leaves itself", k)
		}
		if len(groupPieces(g.n)) == 2 && !slices.Contains(forced, true) {
			forced[k] = true
		}
	}
	if !slices.Contains(forced, true) {
		t.Fatal("no group of two 3-signer leaves can be cut")
	}
	defer splitPlans.Store(key, own)
	mc := mergeChildren(siblingLeaves(t, 2, 3, 2, 4242))
	children := []NRChild{{Leaf: &mc[0]}, {Leaf: &mc[1]}}
	splitPlans.Store(key, forced)
	forged, err := mergeNRWith(children, 2, par.New(nil, 2), nil)
	if err != nil {
		t.Fatalf("the prover with its own cut: %v", err)
	}
	fl, _, err := forged.layout()
	if err != nil {
		t.Fatal(err)
	}
	if len(fl.shapes()) != len(l.shapes())+1 {
		t.Fatalf("the forged layout has %d segments, the verifier's %d: the cut was not taken", len(fl.shapes()), len(l.shapes()))
	}
	// The control: a verifier that derives the prover's plan accepts the proof.
	if err := forged.Verify(); err != nil {
		t.Fatalf("the forged cut merge, verified on the prover's plan: %v", err)
	}
	splitPlans.Store(key, own)
	mustReject(t, "a cut the verifier does not make", forged)
	if err := noPanic(func() error { return VerifyMergedNR(forged.ProofBytes(), forged.Statement()) }); err == nil {
		t.Fatal("the file of a cut the verifier does not make verified")
	}
}
