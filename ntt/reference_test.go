package ntt_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/ntt"
	"github.com/leanpipe/leanpipe/stages/witness"
)

// rawProof is the part of a reference proof.bin this package can check: the stream's
// first two scalars (the level-0 root) and the leaf words of every Merkle opening.
type rawProof struct {
	root   [32]byte
	leaves [][]uint64
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
			if err := witness.Fill(stack, blocks, nLog, 2); err != nil {
				t.Fatal(err)
			}
			const fold, rate = 6, 1
			logD := mu - fold + rate
			dst := make([]uint64, 64<<logD)
			ntt.EncodeK(dst, stack, mu, fold, rate, 2)

			proof := readRawProof(t, vectors.ReadFile(t, base+".proof.bin"))
			rows := make(map[[64]uint64]bool, 1<<logD)
			level := make([]blake2s.Digest, 1<<logD)
			var leaf [512]byte
			for q := range 1 << logD {
				var row [64]uint64
				copy(row[:], dst[q*64:(q+1)*64])
				rows[row] = true
				for i, w := range row {
					binary.LittleEndian.PutUint64(leaf[8*i:], w)
				}
				level[q] = blake2s.Sum256(leaf[:])
			}
			for len(level) > 1 {
				for i := range len(level) / 2 {
					level[i] = blake2s.Node(&level[2*i], &level[2*i+1])
				}
				level = level[:len(level)/2]
			}
			if level[0] != proof.root {
				t.Errorf("Merkle root of the codeword %x, proof commits to %x", level[0], proof.root)
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
