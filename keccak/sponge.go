package keccak

import "encoding/binary"

// Sponge is the FIPS 202 sponge on Keccak-f[1600] with the pad10*1 rule and a
// domain-separation suffix: SHA3 uses suffix 0x06, SHAKE 0x1F. The zero value is
// not usable; use NewSponge, NewSHA3_256 or NewSHAKE128.
type Sponge struct {
	s        State
	buf      [StateSize]byte
	rate     int
	n        int // bytes absorbed into buf, or squeezed from it
	suffix   byte
	squeezed bool
}

// NewSponge returns a sponge of rate bytes (1..199, a multiple of 8) with the given
// domain suffix. It panics on a bad rate (a programmer error).
func NewSponge(rate int, suffix byte) *Sponge {
	if rate < 8 || rate >= StateSize || rate%8 != 0 {
		panic("keccak: sponge rate must be a multiple of 8 in [8, 200)")
	}
	return &Sponge{rate: rate, suffix: suffix}
}

// NewSHA3_256 returns a SHA3-256 sponge (rate 136 bytes).
func NewSHA3_256() *Sponge { return NewSponge(136, 0x06) }

// NewSHAKE128 returns a SHAKE128 sponge (rate 168 bytes).
func NewSHAKE128() *Sponge { return NewSponge(168, 0x1f) }

func (h *Sponge) permuteBuf() {
	for i := 0; i < h.rate/8; i++ {
		h.s[i] ^= binary.LittleEndian.Uint64(h.buf[8*i:])
	}
	Permute(&h.s)
}

// Write absorbs p. It panics after the first Read (a programmer error).
func (h *Sponge) Write(p []byte) (int, error) {
	if h.squeezed {
		panic("keccak: Write after Read")
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(h.buf[h.n:h.rate], p)
		h.n += k
		p = p[k:]
		if h.n == h.rate {
			h.permuteBuf()
			h.n = 0
		}
	}
	return n, nil
}

// Read squeezes len(p) bytes.
func (h *Sponge) Read(p []byte) (int, error) {
	if !h.squeezed {
		clear(h.buf[h.n:h.rate])
		h.buf[h.n] ^= h.suffix
		h.buf[h.rate-1] ^= 0x80
		h.permuteBuf()
		h.squeezed = true
		h.n = 0
		b := h.s.Bytes()
		copy(h.buf[:h.rate], b[:h.rate])
	}
	n := len(p)
	for len(p) > 0 {
		if h.n == h.rate {
			Permute(&h.s)
			b := h.s.Bytes()
			copy(h.buf[:h.rate], b[:h.rate])
			h.n = 0
		}
		k := copy(p, h.buf[h.n:h.rate])
		h.n += k
		p = p[k:]
	}
	return n, nil
}

// SumSHA3_256 returns SHA3-256(msg).
func SumSHA3_256(msg []byte) [32]byte {
	h := NewSHA3_256()
	h.Write(msg)
	var d [32]byte
	h.Read(d[:])
	return d
}

// SHAKE128 returns n bytes of SHAKE128(msg).
func SHAKE128(msg []byte, n int) []byte {
	h := NewSHAKE128()
	h.Write(msg)
	out := make([]byte, n)
	h.Read(out)
	return out
}
