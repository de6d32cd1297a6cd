package commit

import (
	"encoding/binary"
	"errors"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
)

// Shape of the level-0 commitment: 2^LaneLog lanes per Merkle row; stacks of
// 2^MinStackLog..2^MaxStackLog words; log inverse rates MinLogInvRate..MaxLogInvRate.
const (
	LaneLog       = 6
	MinStackLog   = 15
	MaxStackLog   = 28
	MinLogInvRate = 1
	MaxLogInvRate = 4
)

// Sentinel errors.
var (
	// ErrShape reports a stack length or rate outside the supported profile.
	ErrShape = errors.New("commit: invalid commitment shape")
	// ErrRoot reports a root scalar that is not a 128-bit half (c2 ≠ 0).
	ErrRoot = errors.New("commit: malformed root scalar")
)

// Committed is the prover's level-0 commitment: the stack (kept by reference, it
// must not change until the opening is done), its codeword in Merkle-row order and
// the tree over the rows.
type Committed struct {
	// Stack is the committed words: Lanes whole lane blocks of 2^(StackLog-LaneLog)
	// words, the leading part of a 2^StackLog-word stack whose other words are zero.
	Stack []field.K
	// Shape is the commitment's shape (Lanes of its lane blocks are Stack).
	Shape
	// Codeword holds 2^(StackLog-LaneLog+LogInvRate) rows of Lanes words; word t of
	// row q is lane block Lanes-1-t of the stack encoded at evaluation point q. A
	// leaf hashes 2^LaneLog-Lanes zero words (the absent blocks' codewords), then the
	// row.
	Codeword []uint64
	Tree     *merkle.Tree
	// Plans supplies the NTT plans (nil: a fresh plan on every use). CommitInto keeps
	// the Plans of its dst, so an engine sets it once per reused Committed.
	Plans PlanSource
}

// Root returns the commitment root.
func (c *Committed) Root() merkle.Digest { return c.Tree.Root() }

// Commit encodes a stack of 2^stackLog words at log inverse rate logInvRate and
// builds its Merkle tree on the workers. stack holds the stack's
// leading whole lane blocks (2^(stackLog-LaneLog) words each, 1 to 2^LaneLog of
// them); the words after it are zero and are neither stored nor encoded (their
// codewords are zero, the leaves' leading words). The result does not depend on
// workers. The caller sends Root as two scalars (RootHalves). Commit allocates the
// codeword and the tree; CommitInto reuses them.
func Commit(stack []field.K, stackLog, logInvRate int, workers par.Workers) (*Committed, error) {
	c := new(Committed)
	if err := CommitInto(c, stack, stackLog, logInvRate, workers); err != nil {
		return nil, err
	}
	return c, nil
}

// CommitInto is Commit writing its result into dst, whose codeword and Merkle
// node buffers it reuses when their capacity suffices (the zero Committed is
// ready; a Committed reused for one shape after another allocates only the small
// Tree header). Every field of dst is overwritten, so views obtained from an
// earlier commitment in dst (its Codeword, Tree, rows) are invalid afterwards; the
// caller keeps dst, and the stack, unchanged until the opening that reads it is
// done. On error (a bad shape, or the workers stopped: a panic in a chunk or a
// cancelled context) dst's fields are left unchanged. The bytes do not depend on what dst held.
func CommitInto(dst *Committed, stack []field.K, stackLog, logInvRate int, workers par.Workers) error {
	sh, err := ShapeOf(len(stack), stackLog, logInvRate)
	if err != nil {
		return err
	}
	logD := sh.BlockLog()
	// The encoder writes the whole codeword and the builder every node it reads:
	// neither buffer needs clearing (the bytes do not depend on what they held).
	codeword := buffers.GrowUninit(dst.Codeword, sh.Lanes<<logD)
	var nodes []merkle.Digest
	if dst.Tree != nil {
		nodes = dst.Tree.Nodes()
	}
	if need := merkle.NodeCount(1 << logD); cap(nodes) < need {
		nodes = buffers.MakeUninit[merkle.Digest](need)
	}
	// Each range of rows the encoder finishes is hashed into its subtree at once, while
	// the rows are still in the worker's cache.
	b := merkle.NewBuilder(nodes[:cap(nodes)], codeword, sh.Lanes, 1<<LaneLog)
	dst.Plans.Plan(logD).EncodeKThen(codeword, stack, LaneLog, logInvRate, workers, b.Add)
	if err := workers.Err(); err != nil {
		return err
	}
	tree := b.Finish(workers)
	if err := workers.Err(); err != nil {
		return err
	}
	*dst = Committed{Stack: stack, Shape: sh, Codeword: codeword, Tree: tree, Plans: dst.Plans}
	return nil
}

// RootHalves splits a 32-byte root into the two scalars it travels as: words 0,1
// and words 2,3 (little-endian), each an E with c2 = 0, low half first.
func RootHalves(d merkle.Digest) [2]field.E {
	w := func(i int) field.K { return field.K(binary.LittleEndian.Uint64(d[8*i:])) }
	return [2]field.E{{C0: w(0), C1: w(1)}, {C0: w(2), C1: w(3)}}
}

// RootFromHalves joins two received scalars into a root; each must have c2 = 0.
func RootFromHalves(lo, hi field.E) (merkle.Digest, error) {
	var d merkle.Digest
	if lo.C2 != 0 || hi.C2 != 0 {
		return d, ErrRoot
	}
	for i, w := range []field.K{lo.C0, lo.C1, hi.C0, hi.C1} {
		binary.LittleEndian.PutUint64(d[8*i:], uint64(w))
	}
	return d, nil
}
