package keccak

import (
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
)

// Fault is a test-only deviation of the witness: bit Bit of lane Lane of round
// Round's χ products is flipped, and the rest of the permutation follows from the
// flipped value (so only that round's product row is violated).
type Fault struct {
	Round, Lane, Bit int
}

// trace runs the permutation of s, calling emit (when not nil) with each round's χ
// input b and χ products t, and returns the output state. A non-nil fault flips one
// product bit. (Tests and the fault hook use it; the filler has its own loop.)
func trace(s State, fault *Fault, emit func(r int, b, t *State)) State {
	for r := range Rounds {
		b := thetaRhoPi(&s)
		t := chiProducts(&b)
		if fault != nil && fault.Round == r {
			t[fault.Lane] ^= 1 << fault.Bit
		}
		if emit != nil {
			emit(r, &b, &t)
		}
		for i := range s {
			s[i] = b[i] ^ t[i]
		}
		s[0] ^= RC[r]
	}
	return s
}

const ones = field.K(^uint64(0))

// fillBlock writes one block's packed witness and its A0·w and B0·w (each
// 2^LogSize/64 words, every word written, so the buffers may be dirty) for the permutations of the given input
// states (len Perms), lane by lane: each lane is one K word.
func (l Layout) fillBlock(wit, a, b []field.K, ins []State, fault *Fault) {
	// Every word below the useful prefix is written below (the regions tile it:
	// the states, the constant's word, the products); only the tail is cleared.
	u := l.Useful() / 64
	clear(wit[u:])
	clear(a[u:])
	clear(b[u:])
	k := l.ConstCol() / 64
	wit[k], a[k], b[k] = 1, 1, 1
	for p, in := range ins {
		base := l.In(p) / 64
		for i, v := range in {
			wit[base+i], a[base+i], b[base+i] = field.K(v), field.K(v), ones
		}
		var f *Fault
		if p == 0 {
			f = fault
		}
		out := fillRounds(wit, a, b, l.Gate(p, 0)/64, in, f)
		base = l.Out(p) / 64
		for i, v := range out {
			wit[base+i], a[base+i], b[base+i] = field.K(v), field.K(v), ones
		}
	}
}

// fill writes the packed witness, A0·w and B0·w of 2^nLog slots for the
// permutations of in: block s holds permutations s·Perms .. s·Perms+Perms−1
// (indices past in.Len() take permutation 0's input), and every witness slot
// from the last live block on a copy of block 0; A0·w and B0·w get that copy in
// the first padding slot only (flows.FlockSpec.Fill). Each block reads its input
// states from the states string in place. The bytes do not depend on the workers.
func (l Layout) fill(workers graph.Workers, in *Input, nLog int, wit, a, b []field.K, faults map[int]Fault) error {
	words := 1 << (l.LogSize - 6)
	slots := 1 << nLog
	n := in.Len()
	live := (n + l.Perms - 1) / l.Perms
	workers.Range(live, func(lo, hi int) {
		blk := make([]State, l.Perms)
		for s := lo; s < hi; s++ {
			var fault *Fault
			for p := range blk {
				j := s*l.Perms + p
				if j >= n {
					j = 0
				}
				blk[p] = in.InputState(j)
			}
			if f, ok := faults[s]; ok {
				fault = &f
			}
			lo := s * words
			l.fillBlock(wit[lo:lo+words], a[lo:lo+words], b[lo:lo+words], blk, fault)
		}
	})
	if err := workers.Err(); err != nil {
		return err
	}
	if live == slots {
		return nil
	}
	// The committed witness holds every padding slot. A0·w and B0·w are read by
	// the zerocheck only through slot live (Input.Live: the first padding slot
	// stands for all), so the later slots of a and b are left as they are.
	for _, v := range [][]field.K{a, b} {
		copy(v[live*words:(live+1)*words], v[:words])
	}
	workers.Range(slots-live, func(lo, hi int) {
		for s := live + lo; s < live+hi; s++ {
			copy(wit[s*words:(s+1)*words], wit[:words])
		}
	})
	return workers.Err()
}

// fillRounds writes the χ products of the permutation of s and their A- and
// B-values, round r's at words g0 + 25r + lane, and returns the output state.
func fillRounds(wit, a, b []field.K, g0 int, s State, fault *Fault) State {
	for r := range Rounds {
		bs := thetaRhoPi(&s)
		g := g0 + 25*r
		w, wa, wb := wit[g:g+25:g+25], a[g:g+25:g+25], b[g:g+25:g+25]
		for y := 0; y < 25; y += 5 {
			b0, b1, b2, b3, b4 := bs[y], bs[y+1], bs[y+2], bs[y+3], bs[y+4]
			t := [5]uint64{^b1 & b2, ^b2 & b3, ^b3 & b4, ^b4 & b0, ^b0 & b1}
			if fault != nil && fault.Round == r && fault.Lane/5 == y/5 {
				t[fault.Lane%5] ^= 1 << fault.Bit
			}
			for x, v := range t {
				w[y+x], s[y+x] = field.K(v), bs[y+x]^v
			}
			wa[y], wa[y+1], wa[y+2], wa[y+3], wa[y+4] = field.K(^b1), field.K(^b2), field.K(^b3), field.K(^b4), field.K(^b0)
			wb[y], wb[y+1], wb[y+2], wb[y+3], wb[y+4] = field.K(b2), field.K(b3), field.K(b4), field.K(b0), field.K(b1)
		}
		s[0] ^= RC[r]
	}
	return s
}
