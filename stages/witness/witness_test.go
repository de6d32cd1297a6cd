package witness

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	xb "golang.org/x/crypto/blake2s"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/par"
)

func randBlock(r *rand.Rand) Compression {
	var c Compression
	for i := range c.H {
		c.H[i] = r.Uint32()
	}
	for i := range c.M {
		c.M[i] = r.Uint32()
	}
	c.T, c.F0, c.F1 = r.Uint64(), r.Uint32(), r.Uint32()
	return c
}

// edgeBlocks are random blocks plus the edge cases of the brief.
func edgeBlocks(r *rand.Rand, n int) []Compression {
	var allOnes [16]uint32
	for i := range allOnes {
		allOnes[i] = ^uint32(0)
	}
	out := []Compression{
		Pinned([16]uint32{}),
		Pinned(allOnes),
		{H: ParamIV, M: allOnes, T: ^uint64(0), F0: ^uint32(0), F1: ^uint32(0)},
		{T: ^uint64(0)},
		{H: [8]uint32{^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0)}, M: allOnes, T: 1 << 63, F1: ^uint32(0)},
		{},
	}
	for len(out) < n {
		out = append(out, randBlock(r))
	}
	return out
}

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// checkBatch checks R1CS satisfaction a·b = w on every row of every slot, the empty
// rows, and that each slot's out words are the compression of its block.
func checkBatch(t *testing.T, w, a, b []field.K, blocks []Compression, nLog int) {
	t.Helper()
	pad := Padding()
	for s := range 1 << nLog {
		blk := &pad
		if s < len(blocks) {
			blk = &blocks[s]
		}
		base := s * SlotWords
		for k := range SlotWords {
			if a[base+k]&b[base+k] != w[base+k] {
				t.Fatalf("slot %d word %d: a·b ≠ w (bits %016x)", s, k, uint64(a[base+k]&b[base+k]^w[base+k]))
			}
		}
		for r := range 1 << circuit.Blake2sLogSize {
			if circuit.BLAKE2s().IsRow(r) {
				continue
			}
			j, bit := Pos(s, r)
			if (w[j]|a[j]|b[j])>>bit&1 != 0 {
				t.Fatalf("slot %d: empty row %d is not zero", s, r)
			}
		}
		if j, bit := Pos(s, circuit.Blake2sConstCol); w[j]>>bit&1 != 1 || a[j]>>bit&1 != 1 || b[j]>>bit&1 != 1 {
			t.Fatalf("slot %d: constant row is not 1·1 = 1", s)
		}
		for i := range 8 { // h words, read back through Pos
			var got uint32
			for k := range 32 {
				j, bit := Pos(s, circuit.Blake2sHBase+32*i+k)
				got |= uint32(w[j]>>bit&1) << k
			}
			if got != blk.H[i] {
				t.Fatalf("slot %d h[%d] = %08x, want %08x", s, i, got, blk.H[i])
			}
		}
		if w[base+wordConst]&1 != 1 {
			t.Fatalf("slot %d: constant wire is 0", s)
		}
		out := blk.Compress()
		for i := range 8 {
			got := uint32(w[base+wordOut+i/2] >> (32 * (i % 2)))
			if got != out[i] {
				t.Fatalf("slot %d out[%d] = %08x, want %08x", s, i, got, out[i])
			}
		}
	}
}

func TestFillSatisfiesR1CS(t *testing.T) {
	r := testrand.New(t)
	for _, tc := range []struct{ n, nLog int }{{8, 3}, {13, 4}, {1, 3}} {
		blocks := edgeBlocks(r, tc.n)[:tc.n]
		n := Words(tc.nLog)
		w, a, b := make([]field.K, n), make([]field.K, n), make([]field.K, n)
		if err := FillAB(w, a, b, blocks, tc.nLog, par.New(nil, 2)); err != nil {
			t.Fatal(err)
		}
		checkBatch(t, w, a, b, blocks, tc.nLog)
		// A flipped committed bit breaks a row.
		for _, col := range []int{circuit.Blake2sGBaseOf(79) + circuit.Blake2sGC2 + 7, circuit.Blake2sGBaseOf(3) + circuit.Blake2sGA1 + 40} {
			j := (1<<tc.nLog-1)*SlotWords + col/64
			w[j] ^= 1 << (col % 64)
			if a[j]&b[j] == w[j] {
				t.Fatalf("flipped bit %d not caught", col)
			}
			w[j] ^= 1 << (col % 64)
		}
	}
}

// sliced runs the circuit gate by gate on up to 64 slots (bit-sliced) and returns
// w, a, b in the row packing.
func sliced(blocks []Compression) (w, a, b []field.K) {
	c := circuit.BLAKE2s()
	ws := make([]uint64, c.Size())
	put := func(base, lane int, v uint32) {
		for i := range 32 {
			ws[base+i] |= uint64(v>>i&1) << lane
		}
	}
	for j := range 64 {
		blk := Padding()
		if j < len(blocks) {
			blk = blocks[j]
		}
		for i := range 8 {
			put(circuit.Blake2sHBase+32*i, j, blk.H[i])
		}
		for i := range 16 {
			put(circuit.Blake2sMBase+32*i, j, blk.M[i])
		}
		put(circuit.Blake2sTLoBase, j, uint32(blk.T))
		put(circuit.Blake2sTHiBase, j, uint32(blk.T>>32))
		put(circuit.Blake2sF0Base, j, blk.F0)
		put(circuit.Blake2sF1Base, j, blk.F1)
	}
	ws[circuit.Blake2sConstCol] = ^uint64(0)
	as, bs := make([]uint64, c.Size()), make([]uint64, c.Size())
	c.Solve(ws, as, bs)
	pack := func(src []uint64) []field.K {
		out := make([]field.K, 64*SlotWords)
		c.PackRows(out, src)
		return out
	}
	return pack(ws), pack(as), pack(bs)
}

// The word-level generator equals a plain gate-by-gate walk of the circuit.
func TestFillMatchesGateWalk(t *testing.T) {
	r := testrand.New(t)
	blocks := edgeBlocks(r, 50)
	n := Words(6)
	w, a, b := make([]field.K, n), make([]field.K, n), make([]field.K, n)
	if err := FillAB(w, a, b, blocks, 6, par.New(nil, 3)); err != nil {
		t.Fatal(err)
	}
	gw, ga, gb := sliced(blocks)
	for name, p := range map[string][2][]field.K{"w": {w, gw}, "a": {a, ga}, "b": {b, gb}} {
		for i := range p[0] {
			if p[0][i] != p[1][i] {
				t.Fatalf("%s: word %d (slot %d, rows %d..) = %016x, gate walk %016x", name, i, i/SlotWords, 64*(i%SlotWords), uint64(p[0][i]), uint64(p[1][i]))
			}
		}
	}
	// And the walk over the filled w (not the solver's) gives the same a and b.
	c := circuit.BLAKE2s()
	wa, wb := make([]field.K, c.Size()), make([]field.K, c.Size())
	bitsOf := func(v []field.K, s int) []field.K {
		out := make([]field.K, c.Size())
		for r := range out {
			out[r] = v[s*SlotWords+r/64] >> (r % 64) & 1
		}
		return out
	}
	for _, s := range []int{0, 2, 49, 63} {
		c.RowValuesK(wa, wb, bitsOf(w, s))
		ea, eb := bitsOf(a, s), bitsOf(b, s)
		for r := range wa {
			if wa[r] != ea[r] || wb[r] != eb[r] {
				t.Fatalf("slot %d row %d: walk (%d,%d), Fill (%d,%d)", s, r, wa[r], wb[r], ea[r], eb[r])
			}
		}
	}
}

func TestFillWorkers(t *testing.T) {
	r := testrand.New(t)
	blocks := edgeBlocks(r, 37)
	n := Words(6)
	var ref [3][]field.K
	for i, workers := range []int{1, 2, 4, 3, 64} {
		w, a, b := make([]field.K, n+5), make([]field.K, n), make([]field.K, n)
		for k := range w {
			w[k] = 0xdead // stale contents must be overwritten, the tail left alone
		}
		if err := FillAB(w, a, b, blocks, 6, par.New(nil, workers)); err != nil {
			t.Fatal(err)
		}
		for k := n; k < len(w); k++ {
			if w[k] != 0xdead {
				t.Fatalf("word %d past the batch was written", k)
			}
		}
		w = w[:n]
		w2 := make([]field.K, n)
		if err := Fill(w2, blocks, 6, par.New(nil, workers)); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			ref = [3][]field.K{w, a, b}
			continue
		}
		for j, got := range [][]field.K{w, a, b, w2} {
			want := ref[j%3]
			for k := range want {
				if got[k] != want[k] {
					t.Fatalf("workers=%d: vector %d differs at word %d", workers, j, k)
				}
			}
		}
	}
}

func TestPaddingWords(t *testing.T) {
	pw, pa, pb := PaddingWords()
	n := Words(4)
	w, a, b := make([]field.K, n), make([]field.K, n), make([]field.K, n)
	blocks := edgeBlocks(testrand.New(t), 9)
	if err := FillAB(w, a, b, blocks, 4, par.New(nil, 2)); err != nil {
		t.Fatal(err)
	}
	for s := 9; s < 16; s++ {
		for k := range SlotWords {
			j := s*SlotWords + k
			if w[j] != pw[k] || a[j] != pa[k] || b[j] != pb[k] {
				t.Fatalf("slot %d word %d differs from PaddingWords", s, k)
			}
		}
	}
	var fw, fa, fb [SlotWords]field.K
	pad := Padding()
	FillSlot(fw[:], fa[:], fb[:], &pad)
	if fw != pw || fa != pa || fb != pb {
		t.Fatal("FillSlot(Padding) differs from PaddingWords")
	}
}

func TestFillErrors(t *testing.T) {
	w := make([]field.K, Words(3))
	if err := Fill(w, make([]Compression, 9), 3, par.New(nil, 1)); !errors.Is(err, ErrTooManyBlocks) {
		t.Fatalf("9 blocks in 8 slots: %v", err)
	}
	if err := Fill(w, nil, 2, par.New(nil, 1)); !errors.Is(err, ErrNLog) {
		t.Fatalf("nLog 2: %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("short buffer did not panic")
			}
		}()
		_ = Fill(w[:len(w)-1], nil, 3, par.New(nil, 1))
	}()
}

// fillSlot spells out the G lanes of a round; they must be the circuit's.
func TestLanesMatchCircuit(t *testing.T) {
	want := [8][4]uint8{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}, {0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}}
	if circuit.Blake2sLanes != want {
		t.Fatalf("circuit lanes %v differ from the ones fillSlot spells out", circuit.Blake2sLanes)
	}
}

func TestNLog(t *testing.T) {
	for n, want := range map[int]int{0: 3, 1: 3, 8: 3, 9: 4, 16: 4, 17: 5, 256: 8, 300: 9, 4096: 12, 4097: 13} {
		if got := NLog(n); got != want {
			t.Errorf("NLog(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, n := range []int{0, 1, 111, 113, 223} {
		if _, err := DecodeBlocks(make([]byte, n)); err == nil {
			t.Errorf("%d bytes: no error", n)
		} else if !errors.Is(err, ErrBlocksLength) && !errors.Is(err, ErrNoBlocks) {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	var c Compression
	if err := c.UnmarshalBinary(make([]byte, 100)); !errors.Is(err, ErrBlocksLength) {
		t.Errorf("short block: %v", err)
	}
	r := testrand.New(t)
	blocks := edgeBlocks(r, 10)
	back, err := DecodeBlocks(EncodeBlocks(blocks))
	if err != nil || len(back) != len(blocks) {
		t.Fatal(err)
	}
	for i := range back {
		if back[i] != blocks[i] {
			t.Fatalf("block %d does not round-trip", i)
		}
	}
}

func TestPaddingBlock(t *testing.T) {
	p := Padding()
	if p.H[0] != 0x6B08E647 || p.H[1] != 0xBB67AE85 || p.H[7] != 0x5BE0CD19 || p.T != 64 || p.F0 != 0xFFFFFFFF || p.F1 != 0 || p.M != [16]uint32{} {
		t.Fatalf("padding block %+v", p)
	}
	sum := xb.Sum256(make([]byte, 64))
	out := p.Compress()
	for i := range 8 {
		if out[i] != le32(sum[4*i:]) {
			t.Fatal("padding block is not BLAKE2s-256(0^64)")
		}
	}
}

func TestReferenceBlocks(t *testing.T) {
	for _, set := range []struct {
		name    string
		n, nLog int
	}{
		{"blake2s-batch-n256-s1", 256, 8},
		{"blake2s-batch-n300-s2", 300, 9},
		{"blake2s-batch-n4096-s3", 4096, 12},
	} {
		t.Run(set.name, func(t *testing.T) {
			raw := vectors.ReadFile(t, "reference-proofs/"+set.name+".blocks.bin")
			blocks, err := DecodeBlocks(raw)
			if err != nil {
				t.Fatal(err)
			}
			if len(blocks) != set.n || NLog(len(blocks)) != set.nLog {
				t.Fatalf("N = %d (nLog %d), want %d (%d)", len(blocks), NLog(len(blocks)), set.n, set.nLog)
			}
			if !bytes.Equal(EncodeBlocks(blocks), raw) {
				t.Fatal("re-encoding differs from the file")
			}
			var msg [64]byte
			for i := range blocks {
				blk := &blocks[i]
				if blk.H != ParamIV || blk.T != 64 || blk.F0 != ^uint32(0) || blk.F1 != 0 {
					t.Fatalf("block %d is not pinned", i)
				}
				for k, m := range blk.M {
					binary.LittleEndian.PutUint32(msg[4*k:], m)
				}
				sum := xb.Sum256(msg[:])
				out := blk.Compress()
				for k := range 8 {
					if out[k] != le32(sum[4*k:]) {
						t.Fatalf("block %d: compression ≠ BLAKE2s-256(m)", i)
					}
				}
			}
			n := Words(set.nLog)
			w, a, b := make([]field.K, n), make([]field.K, n), make([]field.K, n)
			if err := FillAB(w, a, b, blocks, set.nLog, par.New(nil, 2)); err != nil {
				t.Fatal(err)
			}
			checkBatch(t, w, a, b, blocks, set.nLog)
		})
	}
}

func BenchmarkFill(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, nLog := range []int{12, 14} {
		for _, workers := range []int{1, 2} {
			for _, ab := range []bool{false, true} {
				b.Run(fmt.Sprintf("slots=2^%d/workers=%d/ab=%v", nLog, workers, ab), func(b *testing.B) {
					blocks := make([]Compression, 1<<nLog)
					for i := range blocks {
						blocks[i] = Pinned(randBlock(r).M)
					}
					n := Words(nLog)
					w := make([]field.K, n)
					var a, bb []field.K
					if ab {
						a, bb = make([]field.K, n), make([]field.K, n)
					}
					b.SetBytes(int64(len(blocks)) * BlockSize)
					if err := FillAB(w, a, bb, blocks, nLog, par.New(nil, workers)); err != nil { // fault the pages in
						b.Fatal(err)
					}
					cpu0 := cpuTime()
					for b.Loop() {
						if err := FillAB(w, a, bb, blocks, nLog, par.New(nil, workers)); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(blocks))*float64(b.N)/b.Elapsed().Seconds(), "compressions/s")
					b.ReportMetric(float64(cpuTime()-cpu0)/float64(len(blocks)*b.N), "cpu-ns/compression")
				})
			}
		}
	}
}

// DecodeBlocks never panics, and what it accepts re-encodes to the same bytes.
func FuzzDecodeBlocks(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, BlockSize))
	f.Add(make([]byte, BlockSize+1))
	f.Fuzz(func(t *testing.T, data []byte) {
		blocks, err := DecodeBlocks(data)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeBlocks(blocks), data) {
			t.Fatal("accepted input does not round-trip")
		}
	})
}
