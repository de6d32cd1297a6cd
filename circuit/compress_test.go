package circuit

import (
	"testing"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// Compress at an arbitrary base, with input, literal and zero message words, matches
// blake2s.Compress; literal words cost fewer product columns.
func TestCompressMatchesBlake2s(t *testing.T) {
	r := testrand.New(t)
	b := NewBuilder("compress", 15, 7)
	b.Input("h", 100, 256)
	b.Input("m", 400, 8*32)
	var h [8]Word
	for i := range h {
		h[i] = b.ColWord(100 + 32*i)
	}
	var m [16]Word
	lit := [8]uint32{0, 0, 0xdeadbeef, 0, 1, 0, 0, 0x80000000} // words 8..15: literals
	for i := range 8 {
		m[i] = b.ColWord(400 + 32*i)
		m[8+i] = b.ConstWord(lit[i])
	}
	out, next := b.Compress(1024, h, m, 48, true)
	for i := range out {
		b.LinearWord(next+32*i, out[i])
	}
	c := b.Compile()
	if used := next - 1024; used >= 80*Blake2sGStride {
		t.Errorf("%d product columns, want fewer than %d with zero message words", used, 80*Blake2sGStride)
	}
	wit := make([]uint64, c.Size())
	var hs [64][8]uint32
	var ms [64][16]uint32
	for j := range 64 {
		for i := range 8 {
			hs[j][i] = r.Uint32()
			ms[j][i] = r.Uint32()
			ms[j][8+i] = lit[i]
		}
		for i := range 8 {
			for k := range 32 {
				wit[100+32*i+k] |= uint64(hs[j][i]>>k&1) << j
				wit[400+32*i+k] |= uint64(ms[j][i]>>k&1) << j
			}
		}
	}
	wit[7] = ^uint64(0)
	c.Solve(wit, nil, nil)
	if row := c.Satisfied(wit); row >= 0 {
		t.Fatalf("row %d unsatisfied", row)
	}
	for j := range 64 {
		hh := hs[j]
		blake2s.Compress(&hh, &ms[j], 48, 0xFFFFFFFF, 0)
		for i := range 8 {
			var v uint32
			for k := range 32 {
				v |= uint32(wit[next+32*i+k]>>j&1) << k
			}
			if v != hh[i] {
				t.Fatalf("instance %d word %d: %08x, want %08x", j, i, v, hh[i])
			}
		}
	}
}
