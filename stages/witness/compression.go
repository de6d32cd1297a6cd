package witness

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/circuit"
)

// BlockSize is the byte length of one compression in a blocks file.
const BlockSize = 112

// Errors returned by the decoder and by Fill.
var (
	ErrBlocksLength  = errors.New("witness: bad blocks length")
	ErrNoBlocks      = errors.New("witness: no blocks")
	ErrTooManyBlocks = errors.New("witness: more blocks than slots")
	ErrNLog          = errors.New("witness: slot count log out of range")
)

// MinNLog is the smallest batch: the lincheck needs at least 8 slots.
const MinNLog = 3

// MaxNLog bounds the batch so that bit indices fit comfortably (2^(14+MaxNLog) bits).
const MaxNLog = 32

// Compression is one BLAKE2s compression input (h, m, t, f0, f1): chaining value,
// message block, 64-bit byte counter and the two finalisation flags.
type Compression struct {
	H      [8]uint32
	M      [16]uint32
	T      uint64
	F0, F1 uint32
}

// ParamIV is BLAKE2s-256's initial chaining value: the IV with the parameter block
// (digest length 32, no key, fanout 1, depth 1) folded into word 0.
var ParamIV = func() [8]uint32 {
	h := circuit.Blake2sIV
	h[0] ^= 0x01010020
	return h
}()

// Pinned returns the single-block BLAKE2s-256 compression of the 64-byte message m
// (h = ParamIV, t = 64, f0 = 0xFFFFFFFF, f1 = 0): its output is BLAKE2s-256(m).
func Pinned(m [16]uint32) Compression {
	return Compression{H: ParamIV, M: m, T: 64, F0: ^uint32(0)}
}

// Padding is the block that fills slots N..2^nLog-1: Pinned of the all-zero message.
func Padding() Compression { return Pinned([16]uint32{}) }

// NLog is log2 of the slot count for n compressions: max(3, ⌈log2 n⌉).
func NLog(n int) int {
	if n <= 1<<MinNLog {
		return MinNLog
	}
	return bits.Len(uint(n - 1))
}

// Words is the number of packed K words of a batch of 2^nLog slots: 2^(8+nLog).
func Words(nLog int) int { return SlotWords << nLog }

// UnmarshalBinary decodes one 112-byte block (all fields little-endian: h, m, t, f0, f1).
func (c *Compression) UnmarshalBinary(b []byte) error {
	if len(b) != BlockSize {
		return fmt.Errorf("%w: a block is %d bytes, got %d", ErrBlocksLength, BlockSize, len(b))
	}
	for i := range c.H {
		c.H[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	for i := range c.M {
		c.M[i] = binary.LittleEndian.Uint32(b[32+4*i:])
	}
	c.T = binary.LittleEndian.Uint64(b[96:])
	c.F0 = binary.LittleEndian.Uint32(b[104:])
	c.F1 = binary.LittleEndian.Uint32(b[108:])
	return nil
}

// AppendBinary appends the 112-byte encoding of c.
func (c *Compression) AppendBinary(b []byte) ([]byte, error) {
	for _, h := range c.H {
		b = binary.LittleEndian.AppendUint32(b, h)
	}
	for _, m := range c.M {
		b = binary.LittleEndian.AppendUint32(b, m)
	}
	b = binary.LittleEndian.AppendUint64(b, c.T)
	b = binary.LittleEndian.AppendUint32(b, c.F0)
	return binary.LittleEndian.AppendUint32(b, c.F1), nil
}

// MarshalBinary returns the 112-byte encoding of c.
func (c *Compression) MarshalBinary() ([]byte, error) {
	return c.AppendBinary(make([]byte, 0, BlockSize))
}

// DecodeBlocks decodes a blocks file: N ≥ 1 consecutive 112-byte blocks, slot order.
func DecodeBlocks(data []byte) ([]Compression, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty blocks file", ErrNoBlocks)
	}
	if len(data)%BlockSize != 0 {
		return nil, fmt.Errorf("%w: %d bytes is not a multiple of %d", ErrBlocksLength, len(data), BlockSize)
	}
	out := make([]Compression, len(data)/BlockSize)
	for i := range out {
		if err := out[i].UnmarshalBinary(data[i*BlockSize : (i+1)*BlockSize]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// EncodeBlocks is the inverse of DecodeBlocks.
func EncodeBlocks(blocks []Compression) []byte {
	b := make([]byte, 0, len(blocks)*BlockSize)
	for i := range blocks {
		b, _ = blocks[i].AppendBinary(b)
	}
	return b
}

// initState is the 16-word working state a compression starts from.
func (c *Compression) initState() [16]uint32 {
	var v [16]uint32
	copy(v[:8], c.H[:])
	copy(v[8:], circuit.Blake2sIV[:])
	v[12] ^= uint32(c.T)
	v[13] ^= uint32(c.T >> 32)
	v[14] ^= c.F0
	v[15] ^= c.F1
	return v
}

// Compress returns the output chaining value h'[i] = h[i] ⊕ v[i] ⊕ v[i+8].
func (c *Compression) Compress() [8]uint32 {
	v := c.initState()
	for r := range circuit.Blake2sRounds {
		s := &circuit.Blake2sSigma[r]
		for gi, ln := range circuit.Blake2sLanes {
			a, b, cc, d := ln[0], ln[1], ln[2], ln[3]
			v[a] += v[b] + c.M[s[2*gi]]
			v[d] = bits.RotateLeft32(v[d]^v[a], -16)
			v[cc] += v[d]
			v[b] = bits.RotateLeft32(v[b]^v[cc], -12)
			v[a] += v[b] + c.M[s[2*gi+1]]
			v[d] = bits.RotateLeft32(v[d]^v[a], -8)
			v[cc] += v[d]
			v[b] = bits.RotateLeft32(v[b]^v[cc], -7)
		}
	}
	var out [8]uint32
	for i := range out {
		out[i] = c.H[i] ^ v[i] ^ v[i+8]
	}
	return out
}
