package xmss

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/blake2s"
)

// encodingInputLen is the length of the encoding hash's input: tweak ‖ P ‖ m ‖ ρ ‖ 0^8.
const encodingInputLen = TweakLen + PublicParamLen + MessageLen + RandomnessLen + 8

// EncodingDigest returns D = Th(P, tweak(3, 0, e), m ‖ ρ ‖ 0^8) (docs/xmss.md §3).
func EncodingDigest(p *PublicParam, epoch uint32, msg *Message, rho *Randomness) Digest {
	var buf [encodingInputLen]byte
	putEncodingInput(buf[:], p, epoch, msg)
	copy(buf[64:], rho[:])
	d := blake2s.Sum256(buf[:])
	return Digest(d[:N])
}

// putEncodingInput writes tweak ‖ P ‖ m to b[:64] and zeros ρ's trailing pad b[88:96].
func putEncodingInput(b []byte, p *PublicParam, epoch uint32, msg *Message) {
	putTweak(b, TweakEncoding, 0, epoch)
	copy(b[16:], p[:])
	copy(b[32:], msg[:])
	clear(b[64+RandomnessLen : encodingInputLen])
}

// Digits decodes D into the 42 digits of the target-sum encoding: x_i = (d_0 >> 3i) & 7 and
// x_{21+i} = (d_1 >> 3i) & 7, with d_0, d_1 the little-endian words of D. It returns an error
// wrapping ErrInvalidWots if bit 63 of either word is set or Σ x_i ≠ T.
func Digits(d *Digest) ([V]uint8, error) {
	x, topWord, sum := digits(d)
	switch {
	case topWord >= 0:
		return x, fmt.Errorf("%w: bit 63 of encoding word %d is set", ErrInvalidWots, topWord)
	case sum != TargetSum:
		return x, fmt.Errorf("%w: digits sum to %d, not %d", ErrInvalidWots, sum, TargetSum)
	}
	return x, nil
}

// digits is Digits without the error: topWord is the first word with bit 63 set (−1 if
// none; the digits are then not decoded), sum is Σ x_i.
func digits(d *Digest) (x [V]uint8, topWord, sum int) {
	words := [2]uint64{binary.LittleEndian.Uint64(d[:8]), binary.LittleEndian.Uint64(d[8:])}
	for w, word := range words {
		if word>>63 != 0 {
			return x, w, 0
		}
	}
	for i := range x {
		x[i] = uint8(words[i/(V/2)]>>(W*(i%(V/2)))) & (ChainLength - 1)
		sum += int(x[i])
	}
	return x, -1, sum
}

// accepts reports whether the encoding accepts D, returning its digits; the sum is taken
// with popcounts first, so a rejected D is not decoded.
func accepts(d *Digest) ([V]uint8, bool) {
	w0, w1 := binary.LittleEndian.Uint64(d[:8]), binary.LittleEndian.Uint64(d[8:])
	if (w0|w1)>>63 != 0 || digitSum(w0)+digitSum(w1) != TargetSum {
		return [V]uint8{}, false
	}
	x, _, _ := digits(d)
	return x, true
}

// digitLow has bits 0, 3, …, 60: the low bit of each of a word's 21 digits.
const digitLow = 0x1249249249249249

// digitSum is the sum of the 21 three-bit digits in bits 0..62 of w.
func digitSum(w uint64) int {
	return bits.OnesCount64(w&digitLow) + 2*bits.OnesCount64(w&(digitLow<<1)) + 4*bits.OnesCount64(w&(digitLow<<2))
}

// Encode returns the digits of the target-sum encoding of m under ρ at epoch e, or an error
// wrapping ErrInvalidWots if the encoding rejects ρ.
func Encode(p *PublicParam, epoch uint32, msg *Message, rho *Randomness) ([V]uint8, error) {
	d := EncodingDigest(p, epoch, msg, rho)
	return Digits(&d)
}

// grindBatch is the number of candidate ρ hashed together by the randomness search.
const grindBatch = 128

// findRandomness draws ρ from next until the encoding accepts it, hashing grindBatch
// candidates per blake2s.SumMany call; candidates are tried in the order drawn and the first
// accepted one is returned with its digits and the number of candidates tried. next fills
// its argument with fresh candidate bytes.
func findRandomness(p *PublicParam, epoch uint32, msg *Message, next func([]byte) error) (Randomness, [V]uint8, int, error) {
	src := make([]byte, grindBatch*encodingInputLen)
	for c := 0; c < grindBatch; c++ {
		putEncodingInput(src[c*encodingInputLen:], p, epoch, msg)
	}
	rhos := make([]byte, grindBatch*RandomnessLen)
	dst := make([]blake2s.Digest, grindBatch)
	tries := 0
	for {
		if err := next(rhos); err != nil {
			return Randomness{}, [V]uint8{}, tries, err
		}
		for c := 0; c < grindBatch; c++ {
			copy(src[c*encodingInputLen+64:], rhos[c*RandomnessLen:(c+1)*RandomnessLen])
		}
		blake2s.SumMany(dst, src, encodingInputLen)
		for c := range dst {
			tries++
			d := Digest(dst[c][:N])
			if x, ok := accepts(&d); ok {
				return Randomness(rhos[c*RandomnessLen:]), x, tries, nil
			}
		}
	}
}
