package aggregate

import (
	"fmt"
	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"

	"github.com/leanpipe/leanpipe/xmss"
)

// Statement is what a signature's block proves about: the public key, the epoch and
// the message. Its pinned regions' expected values follow from it alone.
type Statement struct {
	PublicKey xmss.PublicKey
	Epoch     uint32
	Message   xmss.Message
}

// Pinned is the expected value of every pinned column of a block: (column, bit)
// pairs for P, the message, the epoch, the computed root and the asserted zeros, in
// that order (the columns of doc.go's table).
func (st Statement) Pinned() (cols []int, vals []uint8) {
	put := func(base int, b []byte) {
		for i := range 8 * len(b) {
			cols = append(cols, base+i)
			vals = append(vals, b[i/8]>>(i%8)&1)
		}
	}
	put(PBase, st.PublicKey.P[:])
	put(MsgBase, st.Message[:])
	for i := range 32 {
		cols = append(cols, EpochBase+i)
		vals = append(vals, uint8(st.Epoch>>i&1))
	}
	put(RootBase, st.PublicKey.Root[:])
	for i := range AssertLen {
		cols = append(cols, AssertBase+i)
		vals = append(vals, 0)
	}
	return cols, vals
}

// CheckPinned compares lane of the bit-sliced witness w with the statement's pinned
// values and returns the first mismatch (region name and column) as an error.
func (c *Circuit) CheckPinned(w []uint64, lane uint, st Statement) error {
	cols, vals := st.Pinned()
	for i, col := range cols {
		if uint8(w[col]>>lane&1) != vals[i] {
			return fmt.Errorf("aggregate: pinned column %d (%s) is %d, the statement says %d", col, RegionOf(col), vals[i]^1, vals[i])
		}
	}
	return nil
}

// RegionOf names the pinned region holding col ("P", "message", "epoch", "root",
// "assert/<check>[index]"), or "" for any other column.
func RegionOf(col int) string {
	switch {
	case col >= PBase && col < PBase+128:
		return "P"
	case col >= MsgBase && col < MsgBase+256:
		return "message"
	case col >= EpochBase && col < EpochBase+32:
		return "epoch"
	case col >= RootBase && col < RootBase+128:
		return "root"
	case col >= AssertBase && col < AssertBase+AssertLen:
		o := col - AssertBase
		switch {
		case o == AssertBit63:
			return "assert/bit63"
		case o == AssertBit127:
			return "assert/bit127"
		case o < AssertNoWrap:
			return fmt.Sprintf("assert/sum[%d]", o-AssertSum)
		case o < AssertTip:
			return fmt.Sprintf("assert/nowrap[%d]", o-AssertNoWrap)
		default:
			return fmt.Sprintf("assert/tip[%d]", o-AssertTip)
		}
	}
	return ""
}

// Assignment is the prover's choice of free inputs for one block: the slot layout,
// the selectors and the signature's values. Plan derives it from a signature; tests
// alter it to force invalid witnesses.
type Assignment struct {
	Statement
	Rho   xmss.Randomness
	Start [Slots]bool
	Chain [Slots]uint8
	Pos   [Slots]uint8
	Value [Slots]xmss.Digest
	// Src is the routing: input lane Src[o] reaches output o (a permutation of
	// [0, RouteLanes); lanes ≥ Slots are the free lanes).
	Src  [RouteLanes]int
	Free [FreeLanes]xmss.Digest
	Path [xmss.LogLifetime]xmss.Digest
}

// Plan lays out the signature's verification: chains chain-major, chain i's run of
// 7 − x_i slots starting at position x_i from tip i, chain i's end picked from the
// last slot of its run. It does not verify the signature: digits come from D
// whatever the encoding's verdict, and a layout that does not fit (Σ(7 − x_i) ≠ 99)
// is cut or padded, so the block then fails a check. Use FillWitness to prove.
func Plan(st Statement, sig *xmss.Signature) *Assignment {
	a := new(Assignment)
	planInto(a, st, sig)
	return a
}

// planInto is Plan into a, every field of which it overwrites (the filler reuses
// its assignments from proof to proof).
func planInto(a *Assignment, st Statement, sig *xmss.Signature) {
	*a = Assignment{Statement: st, Rho: sig.Rho, Path: sig.Path}
	d := xmss.EncodingDigest(&st.PublicKey.P, st.Epoch, &st.Message, &sig.Rho)
	x, _ := xmss.Digits(&d)
	var used, routed [RouteLanes]bool
	use := func(o, lane int) {
		a.Src[o], used[lane], routed[o] = lane, true, true
	}
	j, free := 0, 0
	for i := range xmss.V {
		if x[i] == xmss.ChainLength-1 {
			// No steps: the tip is the end, brought in on a free lane.
			if free < FreeLanes {
				a.Free[free] = sig.Tips[i]
				use(i, Slots+free)
				free++
			}
			continue
		}
		for k := int(x[i]); k < xmss.ChainLength-1; k++ {
			if j < Slots {
				a.Start[j] = k == int(x[i])
				a.Chain[j], a.Pos[j] = uint8(i), uint8(k)
				a.Value[j] = sig.Tips[i]
				if k == xmss.ChainLength-2 {
					use(i, j)
				}
			}
			j++
		}
	}
	for ; j < Slots; j++ { // padding for an encoding that needs fewer steps
		a.Start[j] = true
	}
	a.Start[0] = true
	// Every other output takes an unused lane, in order (a layout that did not fit
	// routes some chain an arbitrary lane, which its check refuses).
	next := 0
	for o := range a.Src {
		if routed[o] {
			continue
		}
		for used[next] {
			next++
		}
		use(o, next)
	}
}

// checkPermutation reports whether src is a permutation of [0, RouteLanes).
func checkPermutation(src *[RouteLanes]int) error {
	var seen [RouteLanes]bool
	for o, i := range src {
		if i < 0 || i >= len(src) || seen[i] {
			return fmt.Errorf("aggregate: routing: output %d takes lane %d, not a permutation", o, i)
		}
		seen[i] = true
	}
	return nil
}

func setBytes(w []uint64, lane uint, base int, b []byte) {
	for i := range 8 * len(b) {
		setBit(w, lane, base+i, uint64(b[i/8]>>(i%8)&1))
	}
}

func setBit(w []uint64, lane uint, col int, v uint64) {
	w[col] = w[col]&^(1<<lane) | (v&1)<<lane
}

// SetInputs writes a's free and public inputs into lane of the bit-sliced witness w
// (length Size) and sets the constant column's bit; Solve then fills every row.
func (c *Circuit) SetInputs(w []uint64, lane uint, a *Assignment) {
	c.setInputs(w, lane, a, new(router))
}

// setInputs is SetInputs routing in rt's memory.
func (c *Circuit) setInputs(w []uint64, lane uint, a *Assignment, rt *router) {
	L := &c.Layout
	setBit(w, lane, ConstCol, 1)
	setBytes(w, lane, PBase, a.PublicKey.P[:])
	setBytes(w, lane, MsgBase, a.Message[:])
	for i := range 32 {
		setBit(w, lane, EpochBase+i, uint64(a.Epoch>>i))
	}
	setBytes(w, lane, L.Rho, a.Rho[:])
	for j := range Slots {
		var s uint64
		if a.Start[j] {
			s = 1
		}
		setBit(w, lane, L.Start+j, s)
		for t := range 6 {
			setBit(w, lane, L.Chain+6*j+t, uint64(a.Chain[j]>>t))
		}
		for t := range 3 {
			setBit(w, lane, L.Pos+3*j+t, uint64(a.Pos[j]>>t))
		}
		setBytes(w, lane, L.Value+128*j, a.Value[j][:])
	}
	if err := checkPermutation(&a.Src); err != nil {
		panic(err.Error())
	}
	for t, s := range rt.route(a.Src[:], RouteOutputs) {
		var v uint64
		if s {
			v = 1
		}
		setBit(w, lane, L.Route+t, v)
	}
	for f := range FreeLanes {
		setBytes(w, lane, L.Free+128*f, a.Free[f][:])
	}
	for l := range xmss.LogLifetime {
		setBytes(w, lane, L.Sibling+128*l, a.Path[l][:])
	}
}

// Solve fills the witness of up to 64 assignments, bit-sliced: bit j of the result's
// word col is column col of block j.
func (c *Circuit) Solve(as ...*Assignment) []uint64 {
	if len(as) > 64 {
		panic("aggregate: more than 64 assignments in one Solve")
	}
	w := make([]uint64, c.Size())
	for j, a := range as {
		c.SetInputs(w, uint(j), a)
	}
	c.Circuit.Solve(w, nil, nil)
	return w
}

// FillWitness verifies the signature natively (xmss.Verify) and returns the block's
// witness in lane 0 of a bit-sliced vector (length 2^LogSize): every row satisfied and
// every pinned column equal to the statement's value.
func FillWitness(pk xmss.PublicKey, epoch uint32, msg xmss.Message, sig *xmss.Signature) ([]uint64, error) {
	if err := xmss.Verify(pk, epoch, msg, sig); err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	return New().Solve(Plan(Statement{pk, epoch, msg}, sig)), nil
}

// The public inputs (P, message, epoch) are the columns [PBase, pubEnd); the free
// ones [FreeBase, Layout.FreeEnd). Both start on a 64-column boundary.
const pubEnd = EpochBase + 32

// groupInputs is the per-batch memory of setGroupInputs: every lane's inputs as one
// bit string per range (bit i of a lane's string is the range's column base+i), and
// the router. A groupInputs is used by one goroutine at a time.
type groupInputs struct {
	rt   router
	bits []uint64 // 64 lanes × (pubWords + free words)
}

const pubWords = (pubEnd - PBase + 63) / 64

// bitWriter appends bits, least significant first, to a zeroed word string.
type bitWriter struct {
	w []uint64
	n int
}

func (b *bitWriter) put(v uint64, n int) {
	v &= 1<<n - 1
	b.w[b.n/64] |= v << (b.n % 64)
	if s := b.n%64 + n; s > 64 {
		b.w[b.n/64+1] |= v >> (64 - b.n%64)
	}
	b.n += n
}

func (b *bitWriter) putBytes(p []byte) {
	for _, x := range p {
		b.put(uint64(x), 8)
	}
}

// setGroupInputs is SetInputs for lanes 0..len(as)-1 of w at once (lane j from
// as[j]; len(as) ≤ 64), every other lane's input bits cleared and the constant
// column's bit set for the lanes given: the same words as clearing the input
// columns and calling SetInputs lane by lane. Each lane's inputs are written as
// two bit strings in column order and 64 lanes' strings transposed 64 columns at a
// time, so each input column's word is written once, not once per lane.
func (c *Circuit) setGroupInputs(w []uint64, as []*Assignment, gi *groupInputs) {
	if len(as) > 64 {
		panic("aggregate: more than 64 assignments in one group")
	}
	L := &c.Layout
	freeWords := (L.FreeEnd - FreeBase + 63) / 64
	per := pubWords + freeWords
	gi.bits = buffers.Grow(gi.bits, 64*per)
	clear(gi.bits)
	for j, a := range as {
		row := gi.bits[j*per : (j+1)*per]
		pub := bitWriter{w: row[:pubWords]}
		pub.putBytes(a.PublicKey.P[:])
		pub.putBytes(a.Message[:])
		pub.put(uint64(a.Epoch), 32)
		f := bitWriter{w: row[pubWords:]}
		f.putBytes(a.Rho[:])
		for j := range Slots {
			var s uint64
			if a.Start[j] {
				s = 1
			}
			f.put(s, 1)
		}
		for j := range Slots {
			f.put(uint64(a.Chain[j]), 6)
		}
		for j := range Slots {
			f.put(uint64(a.Pos[j]), 3)
		}
		for j := range Slots {
			f.putBytes(a.Value[j][:])
		}
		if err := checkPermutation(&a.Src); err != nil {
			panic(err.Error())
		}
		for _, s := range gi.rt.route(a.Src[:], RouteOutputs) {
			var v uint64
			if s {
				v = 1
			}
			f.put(v, 1)
		}
		for k := range FreeLanes {
			f.putBytes(a.Free[k][:])
		}
		for l := range xmss.LogLifetime {
			f.putBytes(a.Path[l][:])
		}
	}
	var m [64]uint64
	for _, r := range [2]struct{ base, end, off, words int }{
		{PBase, pubEnd, 0, pubWords},
		{FreeBase, L.FreeEnd, pubWords, freeWords},
	} {
		for k := range r.words {
			for j := range m {
				m[j] = gi.bits[j*per+r.off+k]
			}
			circuit.Transpose64(&m)
			col := r.base + 64*k
			copy(w[col:min(col+64, r.end)], m[:])
		}
	}
	w[ConstCol] = 1<<len(as) - 1 // all ones for 64 lanes: the shift gives 0
}
