package ntt_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/ntt"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/witness"
)

// rawProof is the part of a reference proof.bin this package can check: the stream's
// first two scalars (the level-0 root) and the leaf words of every Merkle opening.
type rawProof struct {
	root    [32]byte
	scalars [][3]uint64
	leaves  [][]uint64
}

func readRawProof(t *testing.T, b []byte) rawProof {
	t.Helper()
	off := 0
	u64 := func() uint64 {
		if off+8 > len(b) {
			t.Fatalf("proof truncated at byte %d", off)
		}
		v := binary.LittleEndian.Uint64(b[off:])
		off += 8
		return v
	}
	var p rawProof
	nScalars := u64()
	if nScalars < 2 {
		t.Fatal("proof stream has no root")
	}
	for i := range nScalars {
		c0, c1, c2 := u64(), u64(), u64()
		p.scalars = append(p.scalars, [3]uint64{c0, c1, c2})
		if i < 2 {
			if c2 != 0 {
				t.Fatal("root half with c2 ≠ 0")
			}
			binary.LittleEndian.PutUint64(p.root[16*i:], c0)
			binary.LittleEndian.PutUint64(p.root[16*i+8:], c1)
		}
	}
	nOpenings := u64()
	for range nOpenings {
		w := u64()
		leaf := make([]uint64, w)
		for i := range leaf {
			leaf[i] = u64()
		}
		p.leaves = append(p.leaves, leaf)
		depth := u64()
		off += int(depth) * 32
	}
	if off != len(b) {
		t.Fatalf("proof has %d trailing bytes", len(b)-off)
	}
	return p
}

// The level-0 codeword of a reference batch proof's witness must be byte-identical to the
// reference's: its Merkle root is the proof's commitment root, and every level-0 leaf the
// proof opens is one of its rows.
func TestReferenceLevel0Codeword(t *testing.T) {
	sets := []string{"n256-s1", "n300-s2"}
	if !testing.Short() {
		sets = append(sets, "n4096-s3")
	}
	for _, set := range sets {
		t.Run(set, func(t *testing.T) {
			base := fmt.Sprintf("reference-proofs/blake2s-batch-%s", set)
			blocks, err := witness.DecodeBlocks(vectors.ReadFile(t, base+".blocks.bin"))
			if err != nil {
				t.Fatal(err)
			}
			nLog := witness.NLog(len(blocks))
			mu := 8 + nLog
			stack := make([]field.K, witness.Words(nLog))
			if err := witness.Fill(stack, blocks, nLog, par.New(nil, 2)); err != nil {
				t.Fatal(err)
			}
			const fold, rate = 6, 1
			logD := mu - fold + rate
			dst := make([]uint64, 64<<logD)
			ntt.EncodeK(dst, stack, mu, fold, rate, par.New(nil, 2))

			proof := readRawProof(t, vectors.ReadFile(t, base+".proof.bin"))
			rows := make(map[[64]uint64]bool, 1<<logD)
			for q := range 1 << logD {
				var row [64]uint64
				copy(row[:], dst[q*64:(q+1)*64])
				rows[row] = true
			}
			if root := merkleRoot(dst, 64); root != proof.root {
				t.Errorf("Merkle root of the codeword %x, proof commits to %x", root, proof.root)
			}
			opened := 0
			for _, l := range proof.leaves {
				if len(l) != 64 {
					break // level 0 openings come first
				}
				var row [64]uint64
				copy(row[:], l)
				if !rows[row] {
					t.Fatalf("opened level-0 leaf %d is not a row of the codeword", opened)
				}
				opened++
			}
			if opened < 200 {
				t.Fatalf("only %d level-0 openings", opened)
			}
		})
	}
}

// merkleRoot is the binary BLAKE2s tree over rows of w words (each row's leaf is its
// words as little-endian bytes).
func merkleRoot(words []uint64, w int) blake2s.Digest {
	level := make([]blake2s.Digest, len(words)/w)
	leaf := make([]byte, 8*w)
	for q := range level {
		for i, x := range words[q*w : (q+1)*w] {
			binary.LittleEndian.PutUint64(leaf[8*i:], x)
		}
		level[q] = blake2s.Sum256(leaf)
	}
	for len(level) > 1 {
		for i := range len(level) / 2 {
			level[i] = blake2s.Node(&level[2*i], &level[2*i+1])
		}
		level = level[:len(level)/2]
	}
	return level[0]
}

// n256LaneFolds are the six level-0 fold challenges of the n256-s1 reference proof, as
// its transcript draws them (read off a local replay of the reference verifier on
// blake2s-batch-n256-s1.proof.bin).
var n256LaneFolds = [6][3]uint64{
	{0xa48c375e674c059d, 0x80f0f0581d918745, 0x18b8dffd13a7c7f9},
	{0xc1c6623e0bcf0300, 0x2816f6339883e2c8, 0x1cd619d185a19059},
	{0xf6fa5e0ae612eda6, 0xbfb8947590bbc75d, 0x5954fed62cfb359e},
	{0xbbbecf97e229f8ce, 0x10a01133d72135bb, 0x704586ac64c5c508},
	{0x69e93bd7e2442169, 0xde6295cce7db051e, 0xcb6b9106e8e3c8b0},
	{0xd6db56f35ff859dd, 0x927167c0b9d9123c, 0x905dd29f0cb55f56},
}

// The level-1 (E-valued) codeword of the n256 reference proof: the witness folded over its
// 64 lane blocks by the eq weights of the six fold challenges, committed in 8 lanes at log
// inverse rate 4. Its Merkle root must be the level-1 root the proof's stream carries
// (two consecutive scalars, low half first).
func TestReferenceLevel1Codeword(t *testing.T) {
	const base = "reference-proofs/blake2s-batch-n256-s1"
	blocks, err := witness.DecodeBlocks(vectors.ReadFile(t, base+".blocks.bin"))
	if err != nil {
		t.Fatal(err)
	}
	nLog := witness.NLog(len(blocks))
	mu := 8 + nLog
	stack := make([]field.K, witness.Words(nLog))
	if err := witness.Fill(stack, blocks, nLog, par.New(nil, 2)); err != nil {
		t.Fatal(err)
	}
	r := make([]field.E, 6)
	for i, f := range n256LaneFolds {
		r[i] = field.E{C0: field.K(f[0]), C1: field.K(f[1]), C2: field.K(f[2])}
	}
	eq := make([]field.E, 64)
	field.EqTable(eq, r)
	rows := 1 << (mu - 6)
	f1 := make([]field.E, rows)
	for b := range 64 {
		for j := range rows {
			f1[j] = f1[j].Add(eq[b].MulK(stack[b*rows+j]))
		}
	}
	const fold, rate = 3, 4
	logD := mu - 6 - fold + rate
	for _, workers := range []int{1, 2} {
		dst := make([]uint64, 3<<fold<<logD)
		ntt.EncodeE(dst, f1, fold, rate, par.New(nil, workers))
		root := merkleRoot(dst, 3<<fold)
		var lo, hi [3]uint64
		lo[0] = binary.LittleEndian.Uint64(root[0:])
		lo[1] = binary.LittleEndian.Uint64(root[8:])
		hi[0] = binary.LittleEndian.Uint64(root[16:])
		hi[1] = binary.LittleEndian.Uint64(root[24:])
		proof := readRawProof(t, vectors.ReadFile(t, base+".proof.bin"))
		found := false
		for i := 0; i+1 < len(proof.scalars); i++ {
			if proof.scalars[i] == lo && proof.scalars[i+1] == hi {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("workers=%d: level-1 root %x is not in the proof stream", workers, root)
		}
	}
}
