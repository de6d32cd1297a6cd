package witness

import (
	"fmt"
	"math/bits"
	"sync"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
)

// SlotWords is the number of packed K words one slot (2^14 bits) occupies.
const SlotWords = (1 << circuit.Blake2sLogSize) / 64 // 256

// Word indices of the 64-aligned regions of a slot (bit r of the slot is bit r%64
// of word r/64).
const (
	wordH     = circuit.Blake2sHBase / 64    // 0..3
	wordOut   = circuit.Blake2sOutBase / 64  // 4..7
	wordConst = circuit.Blake2sConstCol / 64 // 8 (bit 0)
	wordM     = circuit.Blake2sMBase / 64    // 10..17
	wordT     = circuit.Blake2sTLoBase / 64  // 18: t_lo | t_hi<<32
	wordF     = circuit.Blake2sF0Base / 64   // 19: f0 | f1<<32
	wordG     = circuit.Blake2sGBase / 64    // 20..249: the G products, one bit stream
	wordEnd   = circuit.Blake2sUseful / 64   // 250..255 are empty
)

const (
	mask31 = 1<<31 - 1
	mask30 = 1<<30 - 1
	ones   = ^field.K(0)
)

// Fill writes the packed committed witness w of 2^nLog BLAKE2s slots into
// dst[:Words(nLog)]: slot s < len(blocks) holds blocks[s], every later slot the
// Padding block. Slot s occupies words [s·256, (s+1)·256), bit r of the slot being
// bit r%64 of word s·256 + r/64 (see the package doc). Words beyond Words(nLog)
// are not touched. The bytes written do not depend on workers (≥ 1 goroutines).
func Fill(dst []field.K, blocks []Compression, nLog, workers int) error {
	return FillAB(dst, nil, nil, blocks, nLog, workers)
}

// FillAB is Fill that also writes a = A0·w and b = B0·w per slot in the same
// packing (c = C0·w = w). a and b may each be nil; otherwise they need
// Words(nLog) words, like w.
func FillAB(w, a, b []field.K, blocks []Compression, nLog, workers int) error {
	if nLog < MinNLog || nLog > MaxNLog {
		return fmt.Errorf("%w: nLog %d not in [%d, %d]", ErrNLog, nLog, MinNLog, MaxNLog)
	}
	slots := 1 << nLog
	if len(blocks) > slots {
		return fmt.Errorf("%w: %d blocks, 2^%d slots", ErrTooManyBlocks, len(blocks), nLog)
	}
	n := Words(nLog)
	for _, buf := range [][]field.K{w, a, b} {
		if buf != nil && len(buf) < n {
			panic(fmt.Sprintf("witness: buffer of %d words, want at least %d for nLog %d", len(buf), n, nLog))
		}
	}
	if w == nil {
		panic("witness: nil witness buffer")
	}
	if workers < 1 {
		workers = 1
	}
	workers = min(workers, slots)
	pad := paddingSlot()
	run := func(lo, hi int) {
		var sa, sb [SlotWords]field.K
		for s := lo; s < hi; s++ {
			ws := w[s*SlotWords : (s+1)*SlotWords]
			as, bs := sa[:], sb[:]
			if a != nil {
				as = a[s*SlotWords : (s+1)*SlotWords]
			}
			if b != nil {
				bs = b[s*SlotWords : (s+1)*SlotWords]
			}
			if s < len(blocks) {
				fillSlot(ws, as, bs, &blocks[s])
				continue
			}
			copy(ws, pad.w[:])
			if a != nil {
				copy(as, pad.a[:])
			}
			if b != nil {
				copy(bs, pad.b[:])
			}
		}
	}
	if workers == 1 {
		run(0, slots)
		return nil
	}
	var wg sync.WaitGroup
	for i := range workers {
		lo, hi := slots*i/workers, slots*(i+1)/workers
		wg.Go(func() { run(lo, hi) })
	}
	wg.Wait()
	return nil
}

type slotWords struct{ w, a, b [SlotWords]field.K }

var paddingSlot = sync.OnceValue(func() *slotWords {
	p := new(slotWords)
	c := Padding()
	fillSlot(p.w[:], p.a[:], p.b[:], &c)
	return p
})

// FillSlot writes one slot's 256 packed words of w, a = A0·w and b = B0·w for c.
func FillSlot(w, a, b []field.K, c *Compression) {
	if len(w) != SlotWords || len(a) != SlotWords || len(b) != SlotWords {
		panic("witness: FillSlot needs 256-word buffers")
	}
	fillSlot(w, a, b, c)
}

// stream writes 32-bit-or-narrower fields of three parallel bit streams (w, a, b)
// into consecutive words, each word stored once.
type stream struct {
	w, a, b    []field.K
	i          int
	n          uint
	aw, aa, ab uint64
}

func (s *stream) put(vw, va, vb uint32, width uint) {
	s.aw |= uint64(vw) << s.n
	s.aa |= uint64(va) << s.n
	s.ab |= uint64(vb) << s.n
	s.n += width
	if s.n >= 64 {
		s.w[s.i], s.a[s.i], s.b[s.i] = field.K(s.aw), field.K(s.aa), field.K(s.ab)
		s.i++
		s.n -= 64
		sh := width - s.n // ≥ 1; a shift by width leaves 0
		s.aw, s.aa, s.ab = uint64(vw)>>sh, uint64(va)>>sh, uint64(vb)>>sh
	}
}

// add3 streams the 61 rows of a fused three-operand add and returns x + y + z.
func (s *stream) add3(x, y, z uint32) uint32 {
	ml, mr := (x^z)&mask31, (y^z)&mask31
	maj := ml & mr
	s.put(maj, ml, mr, 31)
	p := x ^ y ^ z
	q := (maj ^ z&mask31) << 1
	sum := p + q
	cin := sum ^ p ^ q
	rl, rr := (p^cin)>>1&mask30, (q^cin)>>1&mask30
	s.put(rl&rr, rl, rr, 30)
	return sum
}

// add streams the 31 carry rows of a two-operand add and returns x + y.
func (s *stream) add(x, y uint32) uint32 {
	sum := x + y
	cin := sum ^ x ^ y
	l, r := (x^cin)&mask31, (y^cin)&mask31
	s.put(l&r, l, r, 31)
	return sum
}

func pair(lo, hi uint32) field.K { return field.K(uint64(lo) | uint64(hi)<<32) }

// fillSlot computes one compression with word-level arithmetic and writes every
// word of the slot's w, a and b.
func fillSlot(w, a, b []field.K, c *Compression) {
	w, a, b = w[:SlotWords], a[:SlotWords], b[:SlotWords]
	st := stream{w: w, a: a, b: b, i: wordG}
	v := c.initState()
	m := &c.M
	for r := range circuit.Blake2sRounds {
		sg := &circuit.Blake2sSigma[r]
		for gi, ln := range circuit.Blake2sLanes {
			la, lb, lc, ld := ln[0], ln[1], ln[2], ln[3]
			va, vb, vc, vd := v[la], v[lb], v[lc], v[ld]
			a1 := st.add3(va, vb, m[sg[2*gi]])
			d1 := bits.RotateLeft32(vd^a1, -16)
			c1 := st.add(vc, d1)
			b1 := bits.RotateLeft32(vb^c1, -12)
			a2 := st.add3(a1, b1, m[sg[2*gi+1]])
			d2 := bits.RotateLeft32(d1^a2, -8)
			c2 := st.add(c1, d2)
			b2 := bits.RotateLeft32(b1^c2, -7)
			v[la], v[lb], v[lc], v[ld] = a2, b2, c2, d2
		}
	}
	if st.i != wordEnd || st.n != 0 {
		panic("witness: G stream misaligned")
	}
	// Linear and input rows: w = a = value, b = the constant 1.
	lin := func(k int, x field.K) {
		w[k], a[k], b[k] = x, x, ones
	}
	for i := range 4 {
		lin(wordH+i, pair(c.H[2*i], c.H[2*i+1]))
		lin(wordOut+i, pair(c.H[2*i]^v[2*i]^v[2*i+8], c.H[2*i+1]^v[2*i+1]^v[2*i+9]))
	}
	w[wordConst], a[wordConst], b[wordConst] = 1, 1, 1
	w[wordConst+1], a[wordConst+1], b[wordConst+1] = 0, 0, 0
	for i := range 8 {
		lin(wordM+i, pair(m[2*i], m[2*i+1]))
	}
	lin(wordT, pair(uint32(c.T), uint32(c.T>>32)))
	lin(wordF, pair(c.F0, c.F1))
	for k := wordEnd; k < SlotWords; k++ {
		w[k], a[k], b[k] = 0, 0, 0
	}
}
