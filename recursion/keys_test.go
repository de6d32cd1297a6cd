package recursion

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/leanpipe/leanpipe/xmss"
)

func statementOf(t testing.TB, ag aggregate.Aggregate) flows.Statement {
	t.Helper()
	data, err := ag.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return flows.Statement{Flow: aggregate.FlowName, N: len(ag.PublicKeys), LogInvRate: 2, Data: data}
}

func randomKeys(r *rand.Rand, n int) []xmss.PublicKey {
	keys := make([]xmss.PublicKey, n)
	for i := range keys {
		var b [xmss.PublicKeySize]byte
		for k := range b {
			b[k] = byte(r.Uint32())
		}
		keys[i], _ = xmss.ParsePublicKey(b[:])
	}
	return keys
}

// childKeyClaim evaluates a child statement's key table at a random point, as the
// child's lincheck asks for it.
func childKeyClaim(t testing.TB, r *rand.Rand, st flows.Statement) KeyClaim {
	kt, err := KeyTableOf(st)
	if err != nil {
		t.Fatal(err)
	}
	k := KeyClaim{Tau: make([]field.E, kt.T.W.Log), ChiOut: make([]field.E, kt.SlotBits)}
	for i := range k.Tau {
		k.Tau[i] = randomE(r)
	}
	for i := range k.ChiOut {
		k.ChiOut[i] = randomE(r)
	}
	k.Value = kt.T.Eval(k.Tau, k.ChiOut)
	if err := CheckKeyClaim(st, k); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyClaimsLiftToParent(t *testing.T) {
	r := testrand.New(t)
	var msg xmss.Message
	msg[3] = 9
	sizes := []int{5, 11, 3}
	keys := randomKeys(r, 19)
	parent := statementOf(t, aggregate.Aggregate{Message: msg, Epoch: 77, PublicKeys: keys})
	kt, err := KeyTableOf(parent)
	if err != nil {
		t.Fatal(err)
	}
	var claims []TableClaim
	off := 0
	for _, n := range sizes {
		child := statementOf(t, aggregate.Aggregate{Message: msg, Epoch: 77, PublicKeys: keys[off : off+n]})
		claims = append(claims, LiftKeyClaim(childKeyClaim(t, r, child), off, n))
		off += n
	}
	label := []byte("recursion-keys-test")
	run := func(cl []TableClaim) ([]field.E, field.E, error) {
		p := transcript.NewProver(label, nil)
		if _, _, err := BatchKeyClaims(p, kt, cl); err != nil {
			t.Fatal(err)
		}
		return VerifyKeyClaims(transcript.NewVerifier(p.Proof(), label, nil), kt.T.W.Log, kt.SlotBits, cl)
	}
	pt, v, err := run(claims)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckTableEval(kt, pt, v); err != nil {
		t.Fatalf("the batched claim on the parent's table: %v", err)
	}
	// A child claim lifted at the wrong offset (its keys are not the parent's there),
	// or with a changed value, makes the batch fail or its result false.
	for name, edit := range map[string]func([]TableClaim){
		"offset": func(c []TableClaim) { c[1].Offset++ },
		"value":  func(c []TableClaim) { c[2].Value = c[2].Value.Add(field.One) },
		"count":  func(c []TableClaim) { c[0].N-- },
	} {
		bad := append([]TableClaim(nil), claims...)
		edit(bad)
		pt, v, err := run(bad)
		if err == nil {
			err = CheckTableEval(kt, pt, v)
		}
		if !errors.Is(err, ErrKeyClaims) && !errors.Is(err, ErrClaim) {
			t.Fatalf("a changed %s: %v", name, err)
		}
	}
	// A parent whose key list drops or reorders a child's keys refuses the batch.
	swapped := append([]xmss.PublicKey(nil), keys...)
	swapped[6], swapped[7] = swapped[7], swapped[6]
	kt2, err := KeyTableOf(statementOf(t, aggregate.Aggregate{Message: msg, Epoch: 77, PublicKeys: swapped}))
	if err != nil {
		t.Fatal(err)
	}
	p := transcript.NewProver(label, nil)
	if _, _, err := BatchKeyClaims(p, kt2, claims); err != nil {
		t.Fatal(err)
	}
	pt, v, err = VerifyKeyClaims(transcript.NewVerifier(p.Proof(), label, nil), kt2.T.W.Log, kt2.SlotBits, claims)
	if err == nil {
		err = CheckTableEval(kt2, pt, v)
	}
	if !errors.Is(err, ErrKeyClaims) && !errors.Is(err, ErrClaim) {
		t.Fatalf("a parent with two keys swapped: %v", err)
	}
	// Shapes are checked.
	bad := append([]TableClaim(nil), claims...)
	bad[0].Offset = 1 << kt.SlotBits
	if _, _, err := BatchKeyClaims(transcript.NewProver(label, nil), kt, bad); !errors.Is(err, ErrClaimShape) {
		t.Fatalf("an offset past the table: %v", err)
	}
}

// dense writes P(j, t) for j < 2^Log, t < 2^SlotBits (index j + 2^Log·t): the table
// the key batch reduces, formed in full.
func (kt KeyTable) dense() []field.E {
	log := kt.T.W.Log
	out := make([]field.E, 1<<(log+kt.SlotBits))
	for t := range 1 << kt.SlotBits {
		row := kt.T.Rows[0]
		if t < len(kt.T.Rows) {
			row = kt.T.Rows[t]
		}
		for j := range 1 << log {
			if kt.T.W.Mask != nil && kt.T.W.Mask[j/64]>>(j%64)&1 == 0 {
				continue
			}
			if row[j/64]>>(j%64)&1 == 1 {
				out[j+(t<<log)] = field.One
			}
		}
	}
	return out
}

// The key table's window sums and slot evaluations are its dense table's.
func TestKeyTableSums(t *testing.T) {
	r := testrand.New(t)
	// A table whose rows set bits outside its mask, beside statements' tables.
	synth := KeyTable{T: &lincheck.Table{W: lincheck.Window{Log: 7, Mask: []uint64{r.Uint64(), r.Uint64()}}}, SlotBits: 3}
	for range 5 {
		synth.T.Rows = append(synth.T.Rows, []uint64{r.Uint64(), r.Uint64()})
	}
	for _, n := range []int{0, 5, 19, 300} {
		kt := synth
		if n > 0 {
			kt, _ = keyBatchFixture(t, n, []int{n})
		}
		p := kt.dense()
		log := kt.T.W.Log
		w := make([]field.E, 1<<kt.SlotBits)
		for i := range w {
			w[i] = randomE(r)
		}
		q := kt.windowSums(w)
		rj := make([]field.E, log)
		for i := range rj {
			rj[i] = randomE(r)
		}
		eq := make([]field.E, 1<<log)
		field.EqTable(eq, rj)
		ev := kt.slotEvals(rj)
		for j := range 1 << log {
			var want field.E
			for s := range w {
				want = want.Add(w[s].Mul(p[j+s<<log]))
			}
			if q[j] != want {
				t.Fatalf("%d keys: window sum %d", n, j)
			}
		}
		for s := range ev {
			if ev[s] != field.InnerProduct(eq, p[s<<log:(s+1)<<log]) {
				t.Fatalf("%d keys: slot %d", n, s)
			}
		}
	}
}

// naiveOffsetWeight is offsetWeight by its definition: a sum over the 2^|χ| slots.
func naiveOffsetWeight(chi, r []field.E, o, n int) field.E {
	eq := make([]field.E, 1<<len(chi))
	field.EqTable(eq, chi)
	var total, pad field.E
	for s, e := range eq {
		if s >= n {
			pad = pad.Add(e)
			continue
		}
		total = total.Add(e.Mul(eqIndex(r, o+s)))
	}
	return total.Add(pad.Mul(eqIndex(r, o)))
}

// TestOffsetWeight: the bit walk equals the slot sum natively and on a tape, for
// child tables of 1 to 2^6 slots at offsets across a parent's 2^9, every size n up
// to the child's slots, including a last slot at the parent's end.
func TestOffsetWeight(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for trial := range 300 {
		cb := trial % 7
		pb := cb + r.IntN(4)
		chi := make([]field.E, cb)
		pt := make([]field.E, pb)
		for i := range chi {
			chi[i] = randomE(r)
		}
		for i := range pt {
			pt[i] = randomE(r)
		}
		n := 1 + r.IntN(1<<cb)
		o := r.IntN(1<<pb - n + 1)
		if trial%10 == 0 {
			o = 1<<pb - n
		}
		want := naiveOffsetWeight(chi, pt, o, n)
		if got := offsetWeight(chi, pt, o, n, fieldRing); got != want {
			t.Fatalf("trial %d (|χ| %d, |r| %d, o %d, n %d): walk %v, sum %v", trial, cb, pb, o, n, got, want)
		}
		// On a tape, the point's coordinates committed inputs: the walk's value at
		// the inputs is the same, in O(|r|) products.
		tp := &Tape{}
		in := func(xs []field.E, seg int) ([]Lin, map[[2]int]field.E) {
			ls := make([]Lin, len(xs))
			vals := map[[2]int]field.E{}
			for i, x := range xs {
				ls[i] = tp.Input(seg, i)
				vals[[2]int{seg, i}] = x
			}
			return ls, vals
		}
		lc, vc := in(chi, 0)
		lr, vr := in(pt, 1)
		w := tapeTableWeight(tp, TapeTableClaim{Chi: lc, Offset: o, N: n}, lr)
		value := func(seg, word int) field.E {
			if v, ok := vc[[2]int{seg, word}]; ok && seg == 0 {
				return v
			}
			return vr[[2]int{seg, word}]
		}
		_, _, units := tp.Operands(value)
		if got := w.Eval(value, units); got != want {
			t.Fatalf("trial %d on a tape: %v, want %v", trial, got, want)
		}
		if limit := 16*(pb+1) + 8; tp.Products() > limit {
			t.Fatalf("trial %d: %d products for |r| = %d (over %d)", trial, tp.Products(), pb, limit)
		}
	}
}
