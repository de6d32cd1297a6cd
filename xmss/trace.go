package xmss

import (
	"encoding/binary"
	"fmt"

	"github.com/leanpipe/leanpipe/blake2s"
)

// StageKind names the hash of a verification that a compression belongs to.
type StageKind uint8

const (
	StageEncoding StageKind = iota // the encoding hash, 2 blocks
	StageChain                     // one chain step, 1 block
	StageLeaf                      // the leaf hash, 11 blocks
	StageMerkle                    // one Merkle parent, 1 block
)

// Stage locates a compression in a verification.
type Stage struct {
	Kind StageKind
	// Chain and Position: for StageChain, the chain i and the step's input position k.
	Chain, Position int
	// Level: for StageMerkle, the parent's level ℓ+1 (1..32).
	Level int
}

// String names the stage as the known-answer vectors do: "encoding", "chain[i] step k->k+1",
// "leaf", "merkle level ℓ".
func (s Stage) String() string {
	switch s.Kind {
	case StageEncoding:
		return "encoding"
	case StageChain:
		return fmt.Sprintf("chain[%d] step %d->%d", s.Chain, s.Position, s.Position+1)
	case StageLeaf:
		return "leaf"
	case StageMerkle:
		return fmt.Sprintf("merkle level %d", s.Level)
	}
	return fmt.Sprintf("stage(%d)", s.Kind)
}

// Compression is one BLAKE2s compression F(CVIn, M, T, Final) = CVOut of a verification.
type Compression struct {
	Stage Stage
	Block int // the block's index within its hash
	T     uint64
	Final bool // f0 = 0xFFFFFFFF; f1 is always 0
	CVIn  [8]uint32
	M     [16]uint32
	CVOut [8]uint32
}

// EncodingTrace is step 2 of a verification: D and the digits.
type EncodingTrace struct {
	Tweak  Tweak
	Input  [encodingInputLen]byte // tweak ‖ P ‖ m ‖ ρ ‖ 0^8
	Output blake2s.Digest         // the 32-byte BLAKE2s-256 output; D is its first half
	D      Digest
	Words  [2]uint64 // D as two little-endian words
	Digits [V]uint8
	Sum    int
}

// ChainStepTrace is one chain step: position From+1 = Th(P, Tweak, Input).
type ChainStepTrace struct {
	From   int
	Tweak  Tweak
	Input  Digest
	Output Digest
}

// ChainTrace is the walk of one chain from its tip (position Digit) to its end (position 7).
type ChainTrace struct {
	Digit uint8
	Start Digest
	Steps []ChainStepTrace
	End   Digest
}

// LeafTrace is the leaf hash over the 42 chain ends.
type LeafTrace struct {
	Tweak Tweak
	Ends  [V]Digest
	Leaf  Digest
}

// MerkleStepTrace folds the running node at child level Level with its sibling: the running
// node is the left child iff Bit (bit Level of the epoch) is 0.
type MerkleStepTrace struct {
	Level       int
	Bit         uint8
	Current     Digest
	Sibling     Digest
	ParentIndex uint32 // epoch >> (Level+1)
	Tweak       Tweak
	Parent      Digest
}

// Trace is every intermediate value of one verification (docs/xmss.md §6) and its 144
// compressions in order: encoding, chains 0..41 (each from its digit up), leaf, Merkle
// levels 1..32. When the encoding rejects ρ, only Encoding and its 2 compressions are set.
type Trace struct {
	Epoch        uint32
	Encoding     EncodingTrace
	Chains       [V]ChainTrace
	Leaf         LeafTrace
	Merkle       [LogLifetime]MerkleStepTrace
	Root         Digest // the computed root
	Compressions []Compression
}

// VerifyTrace verifies as Verify does, hashing with explicit compressions, and returns the
// trace together with Verify's verdict: nil, ErrInvalidWots (the trace then holds only the
// encoding) or ErrInvalidMerklePath. It never panics.
func VerifyTrace(pk PublicKey, epoch uint32, msg Message, sig *Signature) (*Trace, error) {
	tr := &Trace{Epoch: epoch, Compressions: make([]Compression, 0, CompressionsPerVerify)}
	p := &pk.P

	enc := &tr.Encoding
	enc.Tweak = MakeTweak(TweakEncoding, 0, epoch)
	putEncodingInput(enc.Input[:], p, epoch, &msg)
	copy(enc.Input[64:], sig.Rho[:])
	enc.Output = tr.hash(Stage{Kind: StageEncoding}, enc.Input[:])
	enc.D = Digest(enc.Output[:N])
	enc.Words = [2]uint64{binary.LittleEndian.Uint64(enc.D[:8]), binary.LittleEndian.Uint64(enc.D[8:])}
	x, err := Digits(&enc.D)
	enc.Digits = x
	for _, d := range x {
		enc.Sum += int(d)
	}
	if err != nil {
		return tr, err
	}

	var buf [leafInputLen]byte
	for i := range tr.Chains {
		c := &tr.Chains[i]
		c.Digit, c.Start = x[i], sig.Tips[i]
		v := c.Start
		for k := int(x[i]); k < ChainLength-1; k++ {
			s := ChainStepTrace{From: k, Tweak: MakeTweak(TweakChain, uint32(ChainLength*i+k), epoch), Input: v}
			copy(buf[:], s.Tweak[:])
			copy(buf[16:], p[:])
			copy(buf[32:], v[:])
			out := tr.hash(Stage{Kind: StageChain, Chain: i, Position: k}, buf[:chainInputLen])
			s.Output = Digest(out[:N])
			v = s.Output
			c.Steps = append(c.Steps, s)
		}
		c.End = v
		tr.Leaf.Ends[i] = v
	}

	tr.Leaf.Tweak = MakeTweak(TweakLeaf, 0, epoch)
	putLeafInput(buf[:], p, epoch, &tr.Leaf.Ends)
	out := tr.hash(Stage{Kind: StageLeaf}, buf[:leafInputLen])
	tr.Leaf.Leaf = Digest(out[:N])

	node := tr.Leaf.Leaf
	for l := range tr.Merkle {
		m := &tr.Merkle[l]
		m.Level, m.Bit, m.Current, m.Sibling = l, uint8(epoch>>l&1), node, sig.Path[l]
		m.ParentIndex = uint32(uint64(epoch) >> (l + 1))
		m.Tweak = MakeTweak(TweakMerkle, uint32(l+1), m.ParentIndex)
		left, right := &m.Current, &m.Sibling
		if m.Bit == 1 {
			left, right = right, left
		}
		copy(buf[:], m.Tweak[:])
		copy(buf[16:], p[:])
		copy(buf[32:], left[:])
		copy(buf[48:], right[:])
		out := tr.hash(Stage{Kind: StageMerkle, Level: l + 1}, buf[:merkleInputLen])
		m.Parent = Digest(out[:N])
		node = m.Parent
	}
	tr.Root = node
	if node != pk.Root {
		return tr, fmt.Errorf("%w: computed root %x, public key root %x", ErrInvalidMerklePath, node, pk.Root)
	}
	return tr, nil
}

// hash is BLAKE2s-256 of data with RFC 7693's framing (t = bytes so far, the last block
// zero-padded with t = len(data) and f0 set; no empty block after a full last block), one
// recorded compression per block.
func (tr *Trace) hash(stage Stage, data []byte) blake2s.Digest {
	h := blake2s.IV
	h[0] ^= 0x01010000 ^ blake2s.Size
	nblocks := max(1, (len(data)+blake2s.BlockSize-1)/blake2s.BlockSize)
	for b := 0; b < nblocks; b++ {
		var block [blake2s.BlockSize]byte
		copy(block[:], data[b*blake2s.BlockSize:])
		c := Compression{Stage: stage, Block: b, CVIn: h, T: uint64(min(len(data), (b+1)*blake2s.BlockSize))}
		c.Final = b == nblocks-1
		for w := range c.M {
			c.M[w] = binary.LittleEndian.Uint32(block[4*w:])
		}
		var f0 uint32
		if c.Final {
			f0 = 0xFFFFFFFF
		}
		blake2s.Compress(&h, &c.M, c.T, f0, 0)
		c.CVOut = h
		tr.Compressions = append(tr.Compressions, c)
	}
	var d blake2s.Digest
	for i, w := range h {
		binary.LittleEndian.PutUint32(d[4*i:], w)
	}
	return d
}
