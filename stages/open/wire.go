package open

import (
	"fmt"

	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/stages/commit"
)

// Wire is an opt-in change to the opening's wire form that prover and verifier must
// agree on (a flow fixes it). The zero value is the reference's form.
type Wire struct {
	// RepeatedLanes, when positive, says that the stack's top RepeatedLanes+1 lane
	// blocks are identical (a Flock flow's lane blocks that hold only padding slots,
	// each a copy of one instance), so that the first RepeatedLanes+1 words of every
	// level-0 codeword row are equal (row word t is lane block 63−t): the wire form
	// sends each level-0 row without its first RepeatedLanes words
	// (transcript.Prover.OpenRepeated, transcript.Verifier.MerkleRepeated). It
	// needs all 64 lane blocks committed; deeper levels are unchanged.
	RepeatedLanes int
}

// RepeatedOpener is the prover transcript's side of Wire.RepeatedLanes
// (transcript.Prover implements it).
type RepeatedOpener interface {
	OpenRepeated(tree *merkle.Tree, queries []int, rep int) ([][]uint64, error)
}

// RepeatedVerifier is the verifier transcript's side of Wire.RepeatedLanes
// (transcript.Verifier implements it).
type RepeatedVerifier interface {
	MerkleRepeated(root merkle.Digest, blockLen int, queries []int, leafWords, rep int) ([][]uint64, error)
}

// check reports whether w fits a commitment of shape sh.
func (w Wire) check(sh commit.Shape) error {
	switch {
	case w.RepeatedLanes < 0 || w.RepeatedLanes >= level0LaneWords:
		return fmt.Errorf("%w: %d repeated lanes", ErrShape, w.RepeatedLanes)
	case w.RepeatedLanes > 0 && sh.Lanes != level0LaneWords:
		return fmt.Errorf("%w: repeated lanes in a stack of %d committed lanes (want %d)", ErrShape, sh.Lanes, level0LaneWords)
	}
	return nil
}

// openLevel0 records the level-0 opening of tree at queries in w's form and returns
// the opened rows (leaf images) in query order.
func (w Wire) openLevel0(tr ProverTranscript, tree *merkle.Tree, queries []int) ([][]uint64, error) {
	if w.RepeatedLanes == 0 {
		return tr.Open(tree, queries), nil
	}
	o, ok := tr.(RepeatedOpener)
	if !ok {
		return nil, fmt.Errorf("open: the transcript %T cannot write repeated lanes", tr)
	}
	return o.OpenRepeated(tree, queries, w.RepeatedLanes)
}

// readLevel0 reads the level-0 opening at queries in w's form.
func (w Wire) readLevel0(tr VerifierTranscript, root merkle.Digest, blockLen int, queries []int, rowWords, leafWords int) ([][]uint64, error) {
	if w.RepeatedLanes == 0 {
		return tr.MerklePadded(root, blockLen, queries, rowWords, leafWords)
	}
	v, ok := tr.(RepeatedVerifier)
	if !ok {
		return nil, fmt.Errorf("open: the transcript %T cannot read repeated lanes", tr)
	}
	return v.MerkleRepeated(root, blockLen, queries, leafWords, w.RepeatedLanes)
}
