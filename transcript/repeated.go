package transcript

import (
	"fmt"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/merkle"
)

// The repeated-prefix wire form is an opt-in form of one opening phase, for a tree
// whose every row starts with rep+1 equal words (a Flock flow's level-0 rows, whose
// leading lane blocks hold only padding slots, each a copy of one instance): the wire
// phase stores each row without its first rep words, and the verifier rebuilds them
// from the first stored word before hashing. The siblings are the pruned ones of
// Open; the raw openings are Open's, full rows. A proof that uses the form must say
// so out of band (its flow fixes rep): the bytes do not.

// OpenRepeated is Open for a tree whose rows all start with rep+1 equal words
// (0 ≤ rep < RowWords; an unpadded tree): the wire phase stores each row without its
// first rep words. It returns the opened rows in query order, as Open does, or an
// error, recording nothing, when the tree is padded, rep is out of range or an opened
// row does not repeat its first word rep times.
func (p *Prover) OpenRepeated(tree *merkle.Tree, queries []int, rep int) ([][]uint64, error) {
	if tree.LeafWords() != tree.RowWords() {
		return nil, fmt.Errorf("transcript: repeated rows in a padded tree (%d-word rows in %d-word leaves)", tree.RowWords(), tree.LeafWords())
	}
	if rep < 0 || rep >= tree.RowWords() {
		return nil, fmt.Errorf("transcript: %d repeated words in rows of %d", rep, tree.RowWords())
	}
	for _, q := range queries {
		if q < 0 || q >= tree.Leaves() {
			return nil, fmt.Errorf("transcript: query %d outside [0, %d)", q, tree.Leaves())
		}
		if i := firstBreak(tree.Row(q), rep); i >= 0 {
			return nil, fmt.Errorf("transcript: row %d: word %d differs from word %d, which its first %d words repeat", q, i, rep, rep)
		}
	}
	rows := p.Open(tree, queries)
	ph := &p.phases[len(p.phases)-1]
	for k, r := range ph.Rows {
		ph.Rows[k] = r[rep:len(r):len(r)]
	}
	return rows, nil
}

// firstBreak returns the first i < rep with row[i] ≠ row[rep], or -1.
func firstBreak(row []uint64, rep int) int {
	for i, w := range row[:rep] {
		if w != row[rep] {
			return i
		}
	}
	return -1
}

// MerkleRepeated is Merkle for the phase OpenRepeated writes: a wire phase stores rows
// of leafWords - rep words, each standing for the leaf that repeats its first stored
// word rep times and then holds it; a raw opening carries the full leaf, whose first
// rep words must equal word rep (so both forms accept exactly the same proofs). The
// rows come back as full leaves in both forms. With rep = 0 it is Merkle.
func (v *Verifier) MerkleRepeated(root blake2s.Digest, blockLen int, queries []int, leafWords, rep int) ([][]uint64, error) {
	if blockLen <= 0 || blockLen&(blockLen-1) != 0 {
		return nil, fmt.Errorf("%w: block length %d is not a power of two", ErrInvalidOpening, blockLen)
	}
	if rep < 0 || rep >= leafWords {
		return nil, fmt.Errorf("%w: %d repeated words in leaves of %d", ErrInvalidOpening, rep, leafWords)
	}
	depth := 0
	for 1<<depth < blockLen {
		depth++
	}
	if !v.wire {
		return v.merkleRaw(root, blockLen, depth, queries, leafWords, func(q int, leaf []uint64) error {
			if i := firstBreak(leaf, rep); i >= 0 {
				return fmt.Errorf("%w: opened row at query %d: word %d differs from word %d, which its first %d words repeat",
					ErrInvalidOpening, q, i, rep, rep)
			}
			return nil
		})
	}
	if v.next >= len(v.proof.Phases) {
		return nil, fmt.Errorf("%w: phase %d", ErrMissingOpening, v.next)
	}
	ph := v.proof.Phases[v.next]
	v.next++
	stored := leafWords - rep
	images := make([][]uint64, len(ph.Rows))
	flat := make([]uint64, len(ph.Rows)*leafWords)
	for k, r := range ph.Rows {
		if len(r) != stored {
			return nil, fmt.Errorf("%w: phase row %d has %d words, want %d (%d repeated)", ErrInvalidOpening, k, len(r), stored, rep)
		}
		img := flat[k*leafWords : (k+1)*leafWords : (k+1)*leafWords]
		for i := range rep {
			img[i] = r[0]
		}
		copy(img[rep:], r)
		images[k] = img
	}
	open, err := merkle.Expand(root, depth, merkle.SortedUnique(queries), images, ph.Siblings, queries)
	if err != nil {
		return nil, fmt.Errorf("%w: phase %d: %w", ErrInvalidOpening, v.next-1, err)
	}
	rows := make([][]uint64, len(open))
	for j := range open {
		rows[j] = open[j].Leaf
	}
	v.raw = append(v.raw, open...)
	return rows, nil
}
