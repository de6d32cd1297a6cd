package recursion

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
)

// Key-table claims (docs/recursion.md §5.2). A child's key claim is on its own key
// table P_c (slot s < n_c holds key s's pinned bits, later slots repeat slot 0). The
// child's keys are the parent's keys at an offset o, so
//
//	P_c(τ, χ) = Σ_{j,t} eq(τ, j)·W(t)·P(j, t),  W(t) = Σ_{s<n_c, o+s=t} eq(χ, s) + [t = o]·Σ_{s≥n_c} eq(χ, s),
//
// a linear claim on the parent's table P with a tensor weight. BatchKeyClaims reduces
// any number of them to one evaluation of P by a sumcheck over its window and slot
// variables; the root evaluates P from its keys (CheckKeyClaim).

// TableClaim is Σ_{j,t} eq(Tau, j)·W(t)·P(j, t) = Value on a parent's key table, for
// the weight W of a child of N keys at Offset whose claim was at slot point Chi.
type TableClaim struct {
	Tau, Chi  []field.E
	Offset, N int
	Value     field.E
}

// LiftKeyClaim expresses a child's key claim (its table of n keys) as a claim on the
// table of a parent that holds those keys at offset.
func LiftKeyClaim(k KeyClaim, offset, n int) TableClaim {
	return TableClaim{Tau: k.Tau, Chi: k.ChiOut, Offset: offset, N: n, Value: k.Value}
}

// weightTable writes W over 2^tBits parent slots.
func (c TableClaim) weightTable(dst []field.E) {
	clear(dst)
	eq := make([]field.E, 1<<len(c.Chi))
	field.EqTable(eq, c.Chi)
	for s, e := range eq {
		t := c.Offset + s
		if s >= c.N {
			t = c.Offset
		}
		dst[t] = dst[t].Add(e)
	}
}

// weightAt is W's multilinear extension at r: Σ_{s<n} eq(χ, s)·eq(r, o+s) plus the
// padding mass times eq(r, o).
func (c TableClaim) weightAt(r []field.E) field.E {
	eq := make([]field.E, 1<<len(c.Chi))
	field.EqTable(eq, c.Chi)
	var total, pad field.E
	for s, e := range eq {
		if s >= c.N {
			pad = pad.Add(e)
			continue
		}
		total = total.Add(e.Mul(eqIndex(r, c.Offset+s)))
	}
	return total.Add(pad.Mul(eqIndex(r, c.Offset)))
}

// eqIndex is eq(r, bits of t), low bit first.
func eqIndex(r []field.E, t int) field.E {
	out := field.One
	for k, x := range r {
		if t>>k&1 == 1 {
			out = out.Mul(x)
		} else {
			out = out.Mul(field.One.Add(x))
		}
	}
	return out
}

// KeyTable is a parent's key table: its window log and rows (lincheck.Table), over
// 2^SlotBits slots.
type KeyTable struct {
	T        *lincheck.Table
	SlotBits int
}

// KeyTableOf returns st's key table (an xmss-aggregate statement's), slots padded to
// max(3, ⌈log2 N⌉) bits as a leaf's are.
func KeyTableOf(st flows.Statement) (KeyTable, error) {
	bind, err := aggregate.Bind(st)
	if err != nil {
		return KeyTable{}, err
	}
	t, ok := bind.Public.(*lincheck.Table)
	if !ok {
		return KeyTable{}, fmt.Errorf("recursion: the statement's public term is not a table")
	}
	return KeyTable{T: t, SlotBits: max(3, bits.Len(uint(st.N-1)))}, nil
}

// dense writes P(j, t) for j < 2^Log, t < 2^SlotBits (index j + 2^Log·t).
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

// ErrKeyClaims reports a key-claim batch that does not hold.
var ErrKeyClaims = errors.New("recursion: key-table claims do not hold")

func checkTableClaims(kt KeyTable, claims []TableClaim) error {
	if len(claims) == 0 {
		return fmt.Errorf("%w: no claims", ErrClaimShape)
	}
	for i, c := range claims {
		if len(c.Tau) != kt.T.W.Log || len(c.Chi) > 20 || c.N < 1 || c.N > 1<<len(c.Chi) || c.Offset < 0 || c.Offset+c.N > 1<<kt.SlotBits {
			return fmt.Errorf("%w: key claim %d (%d keys at %d, %d and %d coordinates) on a table of 2^%d slots",
				ErrClaimShape, i, c.N, c.Offset, len(c.Tau), len(c.Chi), kt.SlotBits)
		}
	}
	return nil
}

func observeTableClaims(observe func(field.E), sample func() field.E, claims []TableClaim) []field.E {
	for _, c := range claims {
		for _, x := range c.Tau {
			observe(x)
		}
		for _, x := range c.Chi {
			observe(x)
		}
		observe(field.FromK(field.K(c.Offset)))
		observe(field.FromK(field.K(c.N)))
		observe(c.Value)
	}
	lambda := make([]field.E, len(claims))
	for i := range lambda {
		lambda[i] = sample()
	}
	return lambda
}

// BatchKeyClaims proves that claims on the table kt reduce to the returned point and
// value P(point): a sumcheck over the window's then the slots' variables of
// Σ_c λ_c·eq(τ_c, j)·W_c(t)·P(j, t).
func BatchKeyClaims(tr ClaimsProver, kt KeyTable, claims []TableClaim) ([]field.E, field.E, error) {
	if err := checkTableClaims(kt, claims); err != nil {
		return nil, field.Zero, err
	}
	lambda := observeTableClaims(tr.Observe, tr.Sample, claims)
	log := kt.T.W.Log
	p := kt.dense()
	g := make([]field.E, len(p))
	eqT := make([]field.E, 1<<log)
	w := make([]field.E, 1<<kt.SlotBits)
	for c, cl := range claims {
		field.EqTable(eqT, cl.Tau)
		cl.weightTable(w)
		for t, wt := range w {
			if wt.IsZero() {
				continue
			}
			field.AddScaledE(g[t<<log:(t+1)<<log], eqT, lambda[c].Mul(wt))
		}
	}
	fs, gs := [][]field.E{p}, [][]field.E{g}
	point := make([]field.E, log+kt.SlotBits)
	proveProductRounds(tr, point, fs, gs, nil)
	p = fs[0]
	tr.Send(p[0])
	return point, p[0], nil
}

// VerifyKeyClaims replays BatchKeyClaims against a table of window log windowLog and
// 2^slotBits slots and returns the point and the value P must have there.
func VerifyKeyClaims(tr ClaimsVerifier, windowLog, slotBits int, claims []TableClaim) ([]field.E, field.E, error) {
	kt := KeyTable{T: &lincheck.Table{W: lincheck.Window{Log: windowLog}}, SlotBits: slotBits}
	if err := checkTableClaims(kt, claims); err != nil {
		return nil, field.Zero, err
	}
	lambda := observeTableClaims(tr.Observe, tr.Sample, claims)
	var running field.E
	for c, cl := range claims {
		running = running.Add(lambda[c].Mul(cl.Value))
	}
	point, running, err := verifyProductRounds(tr, windowLog+slotBits, running, "key batch")
	if err != nil {
		return nil, field.Zero, err
	}
	v, err := tr.Receive()
	if err != nil {
		return nil, field.Zero, fmt.Errorf("recursion: key batch value: %w", err)
	}
	rj, rt := point[:windowLog], point[windowLog:]
	var weight field.E
	for c, cl := range claims {
		weight = weight.Add(lambda[c].Mul(field.EqEval(cl.Tau, rj)).Mul(cl.weightAt(rt)))
	}
	if v.Mul(weight) != running {
		return nil, field.Zero, ErrKeyClaims
	}
	return point, v, nil
}

// CheckTableEval evaluates kt at point natively and compares with value.
func CheckTableEval(kt KeyTable, point []field.E, value field.E) error {
	if len(point) != kt.T.W.Log+kt.SlotBits {
		return fmt.Errorf("%w: a point of %d coordinates", ErrClaimShape, len(point))
	}
	if field.EvalMLE(kt.dense(), point) != value {
		return ErrClaim
	}
	return nil
}
