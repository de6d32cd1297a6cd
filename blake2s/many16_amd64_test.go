//go:build amd64 && !purego

package blake2s

import (
	"encoding/binary"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// The 16-lane kernel's full contract, against the portable compression function: arbitrary
// chaining values, a counter crossing 2^32 (so the high counter word changes between blocks),
// any f0, the stride, both outputs, and nblocks = 0.
func TestHash16Contract(t *testing.T) {
	if Kernels.Level() < cpu.AVX512VPCLMUL {
		t.Skip("no AVX-512 on this CPU (or capped): the kernel cannot run")
	}
	r := testrand.New(t)
	for _, tc := range []struct {
		stride, nblocks int
		t0              uint64
	}{
		{64, 1, 64}, {192, 3, 1<<32 - 64}, {200, 3, 1<<32 - 128}, {512, 8, 1<<40 + 5}, {64, 1, 0}, {1024, 2, 7},
	} {
		src := randBytes(r, 16*tc.stride)
		var h [8][16]uint32
		for j := range h {
			for i := range h[j] {
				h[j][i] = r.Uint32()
			}
		}
		f0 := r.Uint32()

		var want [16]Digest
		for i := 0; i < 16; i++ {
			var hi [8]uint32
			for j := range hi {
				hi[j] = h[j][i]
			}
			for b := 0; b < tc.nblocks; b++ {
				var m [16]uint32
				loadBlock(&m, (*[BlockSize]byte)(src[i*tc.stride+b*BlockSize:]))
				var f uint32
				if b == tc.nblocks-1 {
					f = f0
				}
				compressGeneric(&hi, &m, tc.t0+uint64(b)*BlockSize, f, 0)
			}
			storeDigest(&want[i], &hi)
		}

		var got [16]Digest
		hcopy := h
		hash16(&got, &hcopy, &src[0], uintptr(tc.stride), uintptr(tc.nblocks), tc.t0, f0, 0)
		if got != want {
			t.Fatalf("stride %d nblocks %d t %#x: digests differ\ngot  %x\nwant %x", tc.stride, tc.nblocks, tc.t0, got, want)
		}
		if hcopy != h {
			t.Fatalf("stride %d: h changed although dst was given", tc.stride)
		}
		hash16(nil, &hcopy, &src[0], uintptr(tc.stride), uintptr(tc.nblocks), tc.t0, f0, 0)
		for i := 0; i < 16; i++ {
			for j := 0; j < 8; j++ {
				if w := binary.LittleEndian.Uint32(want[i][4*j:]); hcopy[j][i] != w {
					t.Fatalf("stride %d: h[%d][%d] = %#x, want %#x", tc.stride, j, i, hcopy[j][i], w)
				}
			}
		}
		// nblocks = 0 leaves everything untouched.
		before := hcopy
		hash16(nil, &hcopy, &src[0], uintptr(tc.stride), 0, tc.t0, f0, 0)
		if hcopy != before {
			t.Fatal("nblocks = 0 changed h")
		}
	}
	// fresh ≠ 0 starts from the initial value whatever h holds: one-block messages.
	src := randBytes(r, 16*BlockSize)
	var got, want [16]Digest
	for i := range want {
		want[i] = Sum256(src[i*BlockSize : (i+1)*BlockSize])
	}
	hash16(&got, nil, &src[0], BlockSize, 1, BlockSize, final, 1)
	if got != want {
		t.Fatalf("fresh: digests differ\ngot  %x\nwant %x", got, want)
	}
}
