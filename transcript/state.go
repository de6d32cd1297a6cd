package transcript

import (
	"encoding/binary"
	"fmt"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/field"
)

// Domain tags, placed in lane 3 of every absorbed block.
const (
	dsScalar   = 1
	dsByte     = 2
	dsLen      = 3
	dsSqueeze  = 4
	dsPowBase  = 5
	dsPowNonce = 6
)

// Prefix is the fixed protocol domain string every transcript absorbs before its label.
const Prefix = "leanvm-b/transcript/v4-blake2s"

// State is the 256-bit chaining value as four words.
type State [4]uint64

// Compress returns the words of BLAKE2s-256(left ‖ right), each operand as four 8-byte
// little-endian words: the one primitive of the transcript. A 64-byte message is a single
// BLAKE2s compression (counter 64, last block), applied here to the words directly.
func Compress(left, right [4]uint64) [4]uint64 {
	h := blake2sIV
	h[0] ^= 0x01010020 // digest length 32, key length 0, fanout 1, depth 1
	var m [16]uint32
	for i := 0; i < 4; i++ {
		m[2*i], m[2*i+1] = uint32(left[i]), uint32(left[i]>>32)
		m[8+2*i], m[8+2*i+1] = uint32(right[i]), uint32(right[i]>>32)
	}
	blake2s.Compress(&h, &m, 64, 0xFFFFFFFF, 0)
	return [4]uint64{
		uint64(h[0]) | uint64(h[1])<<32, uint64(h[2]) | uint64(h[3])<<32,
		uint64(h[4]) | uint64(h[5])<<32, uint64(h[6]) | uint64(h[7])<<32,
	}
}

// blake2sIV is the BLAKE2s initialisation vector (RFC 7693 §2.6).
var blake2sIV = [8]uint32{
	0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
}

func digestWords(d *blake2s.Digest) [4]uint64 {
	return [4]uint64{
		binary.LittleEndian.Uint64(d[0:]), binary.LittleEndian.Uint64(d[8:]),
		binary.LittleEndian.Uint64(d[16:]), binary.LittleEndian.Uint64(d[24:]),
	}
}

// duplex is the Fiat–Shamir state shared by Prover and Verifier. n counts the
// compressions it has run on its own chain (absorbs, squeezes, grinding bases).
type duplex struct {
	cv    State
	n     int
	trace func(Step)
}

// Step is one BLAKE2s compression a transcript ran: Out = Compress(In, Block). An
// on-chain step advances the duplex (In is the chaining value before it, Out after);
// a grinding check adds two off the chain: the base, Compress(cv, [0, 0, 0, 5]), and
// the nonce's, Compress(base, [nonce, 6]), whose low bits must be zero.
type Step struct {
	In, Block, Out [4]uint64
	OnChain        bool
}

func newDuplex(label []byte, statement []field.E) duplex {
	var d duplex
	d.absorbBytes([]byte(Prefix))
	d.absorbBytes(label)
	for _, x := range statement {
		d.observe(x)
	}
	return d
}

func (d *duplex) absorb(w0, w1, w2, tag uint64) {
	d.n++
	blk := [4]uint64{w0, w1, w2, tag}
	in := d.cv
	d.cv = Compress(d.cv, blk)
	if d.trace != nil {
		d.trace(Step{In: in, Block: blk, Out: d.cv, OnChain: true})
	}
}

func (d *duplex) observe(x field.E) { d.absorb(uint64(x.C0), uint64(x.C1), uint64(x.C2), dsScalar) }

func (d *duplex) absorbBytes(data []byte) {
	d.absorb(uint64(len(data)), 0, 0, dsLen)
	for off := 0; off < len(data); off += 24 {
		var chunk [24]byte
		copy(chunk[:], data[off:])
		d.absorb(binary.LittleEndian.Uint64(chunk[0:]), binary.LittleEndian.Uint64(chunk[8:]),
			binary.LittleEndian.Uint64(chunk[16:]), dsByte)
	}
}

func (d *duplex) sample() field.E {
	d.absorb(0, 0, 0, dsSqueeze)
	return field.E{C0: field.K(d.cv[0]), C1: field.K(d.cv[1]), C2: field.K(d.cv[2])}
}

func (d *duplex) powBase() [4]uint64 {
	d.n++
	blk := [4]uint64{0, 0, 0, dsPowBase}
	base := Compress(d.cv, blk)
	if d.trace != nil {
		d.trace(Step{In: d.cv, Block: blk, Out: base})
	}
	return base
}

// powOK reports whether nonce clears bits (0 < bits < 64) against base.
func powOK(base [4]uint64, nonce field.E, bits int) bool {
	return Compress(base, nonceBlock(nonce))[0]&(1<<bits-1) == 0
}

func nonceBlock(nonce field.E) [4]uint64 {
	return [4]uint64{uint64(nonce.C0), uint64(nonce.C1), uint64(nonce.C2), dsPowNonce}
}

func (d *duplex) absorbNonce(n field.E) {
	d.absorb(uint64(n.C0), uint64(n.C1), uint64(n.C2), dsPowNonce)
}

func checkBits(bits int) {
	if bits < 0 || bits >= 64 {
		panic(fmt.Sprintf("transcript: grinding width %d outside [0, 64)", bits))
	}
}

// sampleQueries draws count positions in [0, blockLen) (QueriesFrom on the duplex).
func (d *duplex) sampleQueries(blockLen, count int) []int {
	return QueriesFrom(blockLen, count, d.sample)
}

// DigestScalars splits a digest into the two scalars a transcript carries it as: the
// 128-bit halves, low half first, each E(lo word, hi word, 0).
func DigestScalars(d blake2s.Digest) [2]field.E {
	w := digestWords(&d)
	return [2]field.E{
		{C0: field.K(w[0]), C1: field.K(w[1])},
		{C0: field.K(w[2]), C1: field.K(w[3])},
	}
}

// ScalarsDigest inverts DigestScalars, rejecting a half whose c2 is not zero.
func ScalarsDigest(s [2]field.E) (blake2s.Digest, error) {
	var d blake2s.Digest
	for i, x := range s {
		if x.C2 != 0 {
			return d, fmt.Errorf("%w: digest half %d has c2 ≠ 0", ErrNonCanonical, i)
		}
		binary.LittleEndian.PutUint64(d[16*i:], uint64(x.C0))
		binary.LittleEndian.PutUint64(d[16*i+8:], uint64(x.C1))
	}
	return d, nil
}
