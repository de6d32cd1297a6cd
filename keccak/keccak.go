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
func PiSource(i int) int {
	x, y := i%5, i/5
	return (x+3*y)%5 + 5*x
}

// Bytes returns the FIPS 202 state string of s.
func (s *State) Bytes() [StateSize]byte {
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

// thetaRhoPi returns B = π(ρ(θ(a))), the input of χ.
func thetaRhoPi(a *State) State {
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
		src := PiSource(i)
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
		t := chiProducts(&b)
		for i := range s {
			s[i] = b[i] ^ t[i]
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
