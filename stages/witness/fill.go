package witness

import (
	"fmt"
	"math/bits"
	"sync"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
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

// Pos is where constraint row (= column) r of slot s lives in the packed vectors
// w, a and b: bit `bit` of word `word`, with j = s·2^14 + r, word = j/64, bit = j%64.
func Pos(s, r int) (word int, bit uint) {
	j := s<<circuit.Blake2sLogSize + r
	return j >> 6, uint(j & 63)
}

const (
	mask31 = 1<<31 - 1
	mask30 = 1<<30 - 1
	ones   = ^field.K(0)
)

// Fill writes the packed committed witness w of 2^nLog BLAKE2s slots into
// dst[:Words(nLog)]: slot s < len(blocks) holds blocks[s], every later slot the
// Padding block. Slot s occupies words [s·256, (s+1)·256), bit r of the slot being
// bit r%64 of word s·256 + r/64 (see the package doc). Words beyond Words(nLog)
// are not touched. The bytes written do not depend on the workers; a panic in one of them or a
// cancelled context is returned as the error.
func Fill(dst []field.K, blocks []Compression, nLog int, workers par.Workers) error {
	return FillAB(dst, nil, nil, blocks, nLog, workers)
}

// FillAB is Fill that also writes a = A0·w and b = B0·w per slot in the same
// packing (c = C0·w = w). a and b may each be nil; otherwise they need
// Words(nLog) words, like w.
func FillAB(w, a, b []field.K, blocks []Compression, nLog int, workers par.Workers) error {
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
	workers.Range(slots, run, par.MinChunk(64), par.PerWorker(32)) // fine chunks: the workers finish together
	return workers.Err()
}

type slotWords struct{ w, a, b [SlotWords]field.K }

var paddingSlot = sync.OnceValue(func() *slotWords {
	p := new(slotWords)
	c := Padding()
	fillSlot(p.w[:], p.a[:], p.b[:], &c)
	return p
})

// PaddingWords returns the 256 packed words of w, a = A0·w and b = B0·w of the
// Padding block: every slot from N on holds exactly these (a periodic tail).
func PaddingWords() (w, a, b [SlotWords]field.K) {
	p := paddingSlot()
	return p.w, p.a, p.b
}

// FillSlot writes one slot's 256 packed words of w, a = A0·w and b = B0·w for c.
func FillSlot(w, a, b []field.K, c *Compression) {
	if len(w) != SlotWords || len(a) != SlotWords || len(b) != SlotWords {
		panic("witness: FillSlot needs 256-word buffers")
	}
	fillSlot(w, a, b, c)
}

// Product fields of one G block (184 bits), composed into a 3-word record r at
// constant offsets: maj1 [0,31), rip1 [31,61), c1 [61,92), maj2 [92,123),
// rip2 [123,153), c2 [153,184).
const gRecordBits = circuit.Blake2sGStride

// add3 returns x + y + z and the (left, right, product) fields of its majority
// layer (31 bits) and ripple layer (30 bits, slot j holding bit j+1).
func add3(x, y, z uint32) (sum uint32, ml, mr, mp, rl, rr, rp uint64) {
	l, r := (x^z)&mask31, (y^z)&mask31
	maj := l & r
	p := x ^ y ^ z
	q := (maj ^ z&mask31) << 1
	sum = p + q
	cin := sum ^ p ^ q
	rl32, rr32 := (p^cin)>>1&mask30, (q^cin)>>1&mask30
	return sum, uint64(l), uint64(r), uint64(maj), uint64(rl32), uint64(rr32), uint64(rl32 & rr32)
}

// add returns x + y and the (left, right, carry product) fields of its 31 rows.
func add(x, y uint32) (sum uint32, l, r, p uint64) {
	sum = x + y
	cin := sum ^ x ^ y
	l32, r32 := (x^cin)&mask31, (y^cin)&mask31
	return sum, uint64(l32), uint64(r32), uint64(l32 & r32)
}

// record packs the six fields of one G block into three words.
func record(maj1, rip1, c1, maj2, rip2, c2 uint64) (r0, r1, r2 uint64) {
	r0 = maj1 | rip1<<31 | c1<<61
	r1 = c1>>3 | maj2<<28 | rip2<<59
	r2 = rip2>>5 | c2<<25
	return
}

// roundWords is the length of one round's records: 8 G blocks of 184 bits fill
// exactly 23 words, so every round starts word-aligned.
const roundWords = circuit.Blake2sGPerRound * gRecordBits / 64

// Compile-time layout checks (a negative array length fails the build): a round is
// exactly 23 words, and the ten rounds end at the first empty word.
var (
	_ [roundWords*64 - circuit.Blake2sGPerRound*gRecordBits]struct{}
	_ [circuit.Blake2sGPerRound*gRecordBits - roundWords*64]struct{}
	_ [wordG + circuit.Blake2sRounds*roundWords - wordEnd]struct{}
	_ [wordEnd - wordG - circuit.Blake2sRounds*roundWords]struct{}
)

// put ORs a 184-bit record (r0, r1, r2) at bit offset 64·i + l of a zeroed round
// buffer (one spare word); r = 63 - l. Both shift counts are < 64, and
// x>>1>>r is x>>(64-l), including 0 for l = 0.
func put(out *[roundWords + 1]field.K, i int, l, r uint, r0, r1, r2 uint64) {
	o := out[i : i+4 : i+4]
	o[0] |= field.K(r0 << (l & 63))
	o[1] |= field.K(r0>>1>>(r&63) | r1<<(l&63))
	o[2] |= field.K(r1>>1>>(r&63) | r2<<(l&63))
	o[3] |= field.K(r2 >> 1 >> (r & 63))
}

func pair(lo, hi uint32) field.K { return field.K(uint64(lo) | uint64(hi)<<32) }

// roundBuf holds one round's 23 words of one vector, plus a spare word for put.
type roundBuf = [roundWords + 1]field.K

// g runs one G function on lanes (a, b, c, d) with message words mx, my, ORs its
// 184-bit records of w, a and b at bit 64·i + l of the round buffers, and returns
// the new lanes.
func g(va, vb, vc, vd, mx, my uint32, rw, ra, rb *roundBuf, i int, l uint) (uint32, uint32, uint32, uint32) {
	a1, ml1, mr1, mp1, rl1, rr1, rp1 := add3(va, vb, mx)
	d1 := bits.RotateLeft32(vd^a1, -16)
	c1, cl1, cr1, cp1 := add(vc, d1)
	b1 := bits.RotateLeft32(vb^c1, -12)
	a2, ml2, mr2, mp2, rl2, rr2, rp2 := add3(a1, b1, my)
	d2 := bits.RotateLeft32(d1^a2, -8)
	c2, cl2, cr2, cp2 := add(c1, d2)
	b2 := bits.RotateLeft32(b1^c2, -7)
	r := 63 - l
	w0, w1, w2 := record(mp1, rp1, cp1, mp2, rp2, cp2)
	put(rw, i, l, r, w0, w1, w2)
	s0, s1, s2 := record(ml1, rl1, cl1, ml2, rl2, cl2)
	put(ra, i, l, r, s0, s1, s2)
	t0, t1, t2 := record(mr1, rr1, cr1, mr2, rr2, cr2)
	put(rb, i, l, r, t0, t1, t2)
	return a2, b2, c2, d2
}

// G block gi of a round starts at bit gi·184 of the round: word gi·184/64, shift gi·184%64.
const (
	gw1, gl1 = 1 * gRecordBits / 64, 1 * gRecordBits % 64
	gw2, gl2 = 2 * gRecordBits / 64, 2 * gRecordBits % 64
	gw3, gl3 = 3 * gRecordBits / 64, 3 * gRecordBits % 64
	gw4, gl4 = 4 * gRecordBits / 64, 4 * gRecordBits % 64
	gw5, gl5 = 5 * gRecordBits / 64, 5 * gRecordBits % 64
	gw6, gl6 = 6 * gRecordBits / 64, 6 * gRecordBits % 64
	gw7, gl7 = 7 * gRecordBits / 64, 7 * gRecordBits % 64
)

// fillSlot computes one compression with word-level arithmetic and writes every
// word of the slot's w, a and b. The lanes of the eight G calls of a round are
// those of circuit.Blake2sLanes (checked by a test), written out so the state stays
// in named variables.
func fillSlot(w, a, b []field.K, c *Compression) {
	w, a, b = w[:SlotWords], a[:SlotWords], b[:SlotWords]
	v := c.initState()
	v0, v1, v2, v3, v4, v5, v6, v7 := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	v8, v9, v10, v11, v12, v13, v14, v15 := v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]
	m := &c.M
	var rw, ra, rb roundBuf
	for r := range circuit.Blake2sRounds {
		s := &circuit.Blake2sSigma[r]
		clear(rw[:])
		clear(ra[:])
		clear(rb[:])
		v0, v4, v8, v12 = g(v0, v4, v8, v12, m[s[0]], m[s[1]], &rw, &ra, &rb, 0, 0)
		v1, v5, v9, v13 = g(v1, v5, v9, v13, m[s[2]], m[s[3]], &rw, &ra, &rb, gw1, gl1)
		v2, v6, v10, v14 = g(v2, v6, v10, v14, m[s[4]], m[s[5]], &rw, &ra, &rb, gw2, gl2)
		v3, v7, v11, v15 = g(v3, v7, v11, v15, m[s[6]], m[s[7]], &rw, &ra, &rb, gw3, gl3)
		v0, v5, v10, v15 = g(v0, v5, v10, v15, m[s[8]], m[s[9]], &rw, &ra, &rb, gw4, gl4)
		v1, v6, v11, v12 = g(v1, v6, v11, v12, m[s[10]], m[s[11]], &rw, &ra, &rb, gw5, gl5)
		v2, v7, v8, v13 = g(v2, v7, v8, v13, m[s[12]], m[s[13]], &rw, &ra, &rb, gw6, gl6)
		v3, v4, v9, v14 = g(v3, v4, v9, v14, m[s[14]], m[s[15]], &rw, &ra, &rb, gw7, gl7)
		k := wordG + r*roundWords
		copy(w[k:k+roundWords], rw[:roundWords])
		copy(a[k:k+roundWords], ra[:roundWords])
		copy(b[k:k+roundWords], rb[:roundWords])
	}
	v = [16]uint32{v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15}
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
