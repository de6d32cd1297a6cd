package keccak

import (
	"encoding/binary"
	"math/bits"
)

// StateSize is the size of a Keccak-f[1600] state string in bytes.
const StateSize = 200

// Rounds is the number of rounds of Keccak-f[1600].
const Rounds = 24

// State is a Keccak-f[1600] state: lane A[x,y] at index x+5y.
type State [25]uint64

// RC are the round constants of ι (FIPS 202, Algorithm 5 and 6).
var RC = [Rounds]uint64{
	0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
	0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
	0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
	0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
	0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
	0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
}

// Rho is the ρ rotation offset of lane x+5y (FIPS 202, Algorithm 2).
var Rho = [25]int{
	0, 1, 62, 28, 27,
	36, 44, 6, 55, 20,
	3, 10, 43, 25, 39,
	41, 45, 15, 21, 8,
	18, 2, 61, 56, 14,
}

// PiSource returns the lane x+5y of the θ output that π moves to lane i = x'+5y'
// of its output: A'[x', y'] = A[x'+3y', x'] (FIPS 202, Algorithm 3).
func PiSource(i int) int { return piSource[i] }

var piSource = func() (t [25]int) {
	for i := range t {
		x, y := i%5, i/5
		t[i] = (x+3*y)%5 + 5*x
	}
	return t
}()

// Bytes returns the FIPS 202 state string of s.
func (s State) Bytes() [StateSize]byte {
	var b [StateSize]byte
	for i, l := range s {
		binary.LittleEndian.PutUint64(b[8*i:], l)
	}
	return b
}

// StateFrom reads a state string (at least StateSize bytes; the first are used).
func StateFrom(b []byte) State {
	var s State
	for i := range s {
		s[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return s
}

// thetaRhoPi returns B = π(ρ(θ(a))), the input of χ (unrolled; thetaRhoPiLoop
// is its loop form, and a test holds the two equal).
func thetaRhoPi(a *State) (b State) {
	c0 := a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20]
	c1 := a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21]
	c2 := a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22]
	c3 := a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23]
	c4 := a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24]
	d0 := c4 ^ bits.RotateLeft64(c1, 1)
	d1 := c0 ^ bits.RotateLeft64(c2, 1)
	d2 := c1 ^ bits.RotateLeft64(c3, 1)
	d3 := c2 ^ bits.RotateLeft64(c4, 1)
	d4 := c3 ^ bits.RotateLeft64(c0, 1)
	b[0] = bits.RotateLeft64(a[0]^d0, 0)
	b[1] = bits.RotateLeft64(a[6]^d1, 44)
	b[2] = bits.RotateLeft64(a[12]^d2, 43)
	b[3] = bits.RotateLeft64(a[18]^d3, 21)
	b[4] = bits.RotateLeft64(a[24]^d4, 14)
	b[5] = bits.RotateLeft64(a[3]^d3, 28)
	b[6] = bits.RotateLeft64(a[9]^d4, 20)
	b[7] = bits.RotateLeft64(a[10]^d0, 3)
	b[8] = bits.RotateLeft64(a[16]^d1, 45)
	b[9] = bits.RotateLeft64(a[22]^d2, 61)
	b[10] = bits.RotateLeft64(a[1]^d1, 1)
	b[11] = bits.RotateLeft64(a[7]^d2, 6)
	b[12] = bits.RotateLeft64(a[13]^d3, 25)
	b[13] = bits.RotateLeft64(a[19]^d4, 8)
	b[14] = bits.RotateLeft64(a[20]^d0, 18)
	b[15] = bits.RotateLeft64(a[4]^d4, 27)
	b[16] = bits.RotateLeft64(a[5]^d0, 36)
	b[17] = bits.RotateLeft64(a[11]^d1, 10)
	b[18] = bits.RotateLeft64(a[17]^d2, 15)
	b[19] = bits.RotateLeft64(a[23]^d3, 56)
	b[20] = bits.RotateLeft64(a[2]^d2, 62)
	b[21] = bits.RotateLeft64(a[8]^d3, 55)
	b[22] = bits.RotateLeft64(a[14]^d4, 39)
	b[23] = bits.RotateLeft64(a[15]^d0, 41)
	b[24] = bits.RotateLeft64(a[21]^d1, 2)
	return b
}

// thetaRhoPiLoop is thetaRhoPi written as loops over the tables.
func thetaRhoPiLoop(a *State) State {
	var c [5]uint64
	for x := range 5 {
		c[x] = a[x] ^ a[x+5] ^ a[x+10] ^ a[x+15] ^ a[x+20]
	}
	var d [5]uint64
	for x := range 5 {
		d[x] = c[(x+4)%5] ^ bits.RotateLeft64(c[(x+1)%5], 1)
	}
	var b State
	for i := range b {
		src := piSource[i]
		b[i] = bits.RotateLeft64(a[src]^d[src%5], Rho[src])
	}
	return b
}

// chiProducts returns t[x,y] = (¬b[x+1,y]) ∧ b[x+2,y], the non-linear part of χ.
func chiProducts(b *State) State {
	var t State
	for y := 0; y < 25; y += 5 {
		for x := range 5 {
			t[y+x] = ^b[y+(x+1)%5] & b[y+(x+2)%5]
		}
	}
	return t
}

// Permute applies Keccak-f[1600] to s in place.
func Permute(s *State) {
	for r := range Rounds {
		b := thetaRhoPi(s)
		for y := 0; y < 25; y += 5 {
			b0, b1, b2, b3, b4 := b[y], b[y+1], b[y+2], b[y+3], b[y+4]
			s[y] = b0 ^ ^b1&b2
			s[y+1] = b1 ^ ^b2&b3
			s[y+2] = b2 ^ ^b3&b4
			s[y+3] = b3 ^ ^b4&b0
			s[y+4] = b4 ^ ^b0&b1
		}
		s[0] ^= RC[r]
	}
}

// PermuteBytes applies Keccak-f[1600] to a 200-byte state string and returns the result.
func PermuteBytes(in [StateSize]byte) [StateSize]byte {
	s := StateFrom(in[:])
	Permute(&s)
	return s.Bytes()
}
