//go:build amd64 && !purego

package blake2s

import (
	"encoding/binary"
	"github.com/leanpipe/leanpipe/cpu"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// The 8-lane kernel's full contract: arbitrary chaining values, a counter crossing 2^32 (so
// the high counter word changes between blocks), any f0, the stride, and both outputs.
func TestHash8Contract(t *testing.T) {
	if Kernels.Level() < cpu.AVX2 {
		t.Skip("no AVX2 on this CPU: the kernel cannot run")
	}
	r := testrand.New(t)
	for _, tc := range []struct {
		stride, nblocks int
		t0              uint64
	}{
		{64, 1, 64}, {192, 3, 1<<32 - 64}, {200, 3, 1<<32 - 128}, {512, 8, 1<<40 + 5}, {64, 1, 0},
	} {
		src := randBytes(r, 8*tc.stride)
		var h [8][8]uint32
		for j := range h {
			for i := range h[j] {
				h[j][i] = r.Uint32()
			}
		}
		f0 := r.Uint32()

		var want [8]Digest
		for i := 0; i < 8; i++ {
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

		var got [8]Digest
		hash8(&got, &h, &src[0], uintptr(tc.stride), uintptr(tc.nblocks), tc.t0, f0, 0)
		if got != want {
			t.Fatalf("stride %d nblocks %d t %#x: digests differ\ngot  %x\nwant %x", tc.stride, tc.nblocks, tc.t0, got, want)
		}
		hcopy := h
		hash8(nil, &hcopy, &src[0], uintptr(tc.stride), uintptr(tc.nblocks), tc.t0, f0, 0)
		for i := 0; i < 8; i++ {
			for j := 0; j < 8; j++ {
				if w := binary.LittleEndian.Uint32(want[i][4*j:]); hcopy[j][i] != w {
					t.Fatalf("stride %d: h[%d][%d] = %#x, want %#x", tc.stride, j, i, hcopy[j][i], w)
				}
			}
		}
		// nblocks = 0 leaves everything untouched.
		before := hcopy
		hash8(nil, &hcopy, &src[0], uintptr(tc.stride), 0, tc.t0, f0, 0)
		if hcopy != before {
			t.Fatal("nblocks = 0 changed h")
		}
	}
}

// The single-message kernel over several blocks with a counter crossing 2^32 and both flags.
func TestCompress1Contract(t *testing.T) {
	if Kernels.Level() < cpu.AVX2 {
		t.Skip("no AVX on this CPU: the kernel cannot run")
	}
	r := testrand.New(t)
	for _, nblocks := range []int{1, 2, 3, 7} {
		src := randBytes(r, nblocks*BlockSize)
		var h [8]uint32
		for j := range h {
			h[j] = r.Uint32()
		}
		t0 := uint64(1<<32 - 64*uint64(r.IntN(3)))
		f0, f1 := r.Uint32(), r.Uint32()
		want := h
		for b := 0; b < nblocks; b++ {
			var m [16]uint32
			loadBlock(&m, (*[BlockSize]byte)(src[b*BlockSize:]))
			var g0, g1 uint32
			if b == nblocks-1 {
				g0, g1 = f0, f1
			}
			compressGeneric(&want, &m, t0+uint64(b)*BlockSize, g0, g1)
		}
		got := h
		compress1(&got, &src[0], uintptr(nblocks), t0, f0, f1)
		if got != want {
			t.Fatalf("nblocks %d t %#x: %x, want %x", nblocks, t0, got, want)
		}
	}
}
