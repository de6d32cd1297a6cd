package recursion

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
)

// A no-reveal merged proof's two files (docs/recursion.md §6.8): the proof bytes
// (ProofBytes: a header, each child's carried claims with a merged child's shape, the
// batch of the carried claims, then the segmented proof's wire form) and the statement
// kept in PROOF.json (MergeStatement: message, epoch, keys, depth, the children's sizes
// and rates). Such a proof can be a child of another no-reveal merge, to any depth.

const mergeMagicNR = "LPMERGN7"

// maxNesting and maxRecords bound a file's nesting of merged children and their count:
// a verifier lays out every merged shape it is given, so a file may not ask for more
// than a real tree of 8-way merges to depth 4 holds (a tree of 8^3 leaf merges is far
// beyond what a merge can prove today). The reader refuses more before recursing.
const (
	maxNesting = 4
	maxRecords = 8 + 64 + 512
)

// MaxDepthNR is the deepest no-reveal merged proof a file may hold: a root whose merged
// children nest maxNesting deep.
const MaxDepthNR = maxNesting + 1

// IsMergedNRProof reports whether b starts as a no-reveal merged proof file.
func IsMergedNRProof(b []byte) bool { return bytes.HasPrefix(b, []byte(mergeMagicNR)) }

// Depth is the merged proof's depth in the tree: 1 above leaves only, else one more
// than its deepest merged child.
func (m *MergedNR) Depth() int {
	d := 0
	for i := range m.Children {
		if s := m.sub(i); s != nil {
			d = max(d, s.depth())
		}
	}
	return d + 1
}

func (mc *MergedChildNR) depth() int {
	d := 0
	for _, s := range mc.Subs {
		if s != nil {
			d = max(d, s.depth())
		}
	}
	return d + 1
}

// Statement returns the merged proof's statement.
func (m *MergedNR) Statement() MergeStatement {
	return MergeStatement{Message: m.Message, Epoch: m.Epoch, Keys: m.Keys, Depth: m.Depth(), Children: m.Children}
}

// ProofBytes is the file: the magic, the log inverse rate, the carried section's and
// the batch's lengths (u64 LE each), the carried section (per child a kind, 0 a leaf
// with its deferred claims, 1 a merged child with its record), the batch's wire form,
// then the proof's.
func (m *MergedNR) ProofBytes() []byte {
	var carried []byte
	for i, d := range m.Deferred {
		if s := m.sub(i); s != nil {
			carried = binary.LittleEndian.AppendUint64(carried, 1)
			carried = s.appendBinary(carried, false)
			continue
		}
		carried = binary.LittleEndian.AppendUint64(carried, 0)
		carried = appendE(carried, d.Z)
		for _, v := range [][]field.E{d.ChiIn, d.S, d.ChiInPrime, d.Tau, d.ChiOut} {
			carried = appendEs(carried, v)
		}
		carried = appendE(appendE(appendE(carried, d.VA), d.VB), d.Key)
	}
	batch := m.Batch.MarshalWire()
	b := append([]byte(mergeMagicNR), make([]byte, mergeHeader-len(mergeMagicNR))...)
	binary.LittleEndian.PutUint64(b[8:], uint64(m.LogInvRate))
	binary.LittleEndian.PutUint64(b[16:], uint64(len(carried)))
	binary.LittleEndian.PutUint64(b[24:], uint64(len(batch)))
	return append(append(append(b, carried...), batch...), m.Proof.MarshalWire()...)
}

// appendBinary encodes a merged child's record: its children (count, then each one's
// size, rate and kind, a merged one's record following, trimmed), then, unless the
// record is trimmed (a merged grandchild's or below: its shape alone, docs/recursion.md
// §6.11), its hints' values and points, its key claim, its block claims (row and column
// points, then the A0 values, one per kind, the B0 values of the kinds with a B0, and
// the role kinds' address point).
//
// The shape's integers (the children's count, each one's size, rate and kind) are
// unsigned varints: a root's file holds the shape of every descendant, about 5 bytes
// each instead of 24 (docs/recursion.md §6.13).
func (mc *MergedChildNR) appendBinary(b []byte, trimmed bool) []byte {
	uv := func(v int) { b = binary.AppendUvarint(b, uint64(v)) }
	uv(len(mc.Children))
	for i, c := range mc.Children {
		uv(c.N)
		uv(c.LogInvRate)
		if s := mc.sub(i); s != nil {
			uv(1)
			b = s.appendBinary(b, true)
		} else {
			uv(0)
		}
	}
	if trimmed {
		return b
	}
	b = appendEs(b, mc.Values)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(mc.Points)))
	for _, p := range mc.Points {
		b = appendEs(b, p)
	}
	b = appendE(appendEs(b, mc.KeyPoint), mc.KeyValue)
	for _, v := range [][]field.E{mc.Blocks.RRow, mc.Blocks.RCol, mc.Blocks.VA, mc.Blocks.VB, mc.Blocks.RAddr} {
		b = appendEs(b, v)
	}
	return b
}

func (r *byteReader) record(nesting int) *MergedChildNR {
	r.records++
	if nesting > maxNesting || r.records > maxRecords {
		r.err = fmt.Errorf("%w: merged children nested deeper than %d or more than %d in all", ErrMerged, maxNesting, maxRecords)
		r.b = nil
		return nil
	}
	mc := &MergedChildNR{}
	n := r.uvarint()
	if n > MaxChildren {
		r.fail()
		return nil
	}
	for i := range int(n) {
		c := ChildInfo{N: int(min(r.uvarint(), 1<<32)), LogInvRate: int(min(r.uvarint(), 1<<32))}
		mc.Children = append(mc.Children, c)
		switch r.uvarint() {
		case 0:
		case 1:
			if mc.Subs == nil {
				mc.Subs = make([]*MergedChildNR, n)
			}
			mc.Subs[i] = r.record(nesting + 1)
		default:
			r.fail()
		}
		if r.err != nil {
			return nil
		}
	}
	if nesting > 1 {
		// A trimmed record: its shape alone.
		return mc
	}
	mc.Values = r.es()
	np := r.count(8)
	for range np {
		mc.Points = append(mc.Points, r.es())
	}
	mc.KeyPoint, mc.KeyValue = r.es(), r.e()
	mc.Blocks = KindsClaim{RRow: r.es(), RCol: r.es(), VA: r.es(), VB: r.es(), RAddr: r.es()}
	return mc
}

// ParseMergedNR reads a no-reveal merged proof file against its statement.
func ParseMergedNR(b []byte, st MergeStatement) (*MergedNR, error) {
	if !IsMergedNRProof(b) || len(b) < mergeHeader {
		return nil, fmt.Errorf("%w: not a no-reveal merged proof file (%q; want %q)", ErrMerged, b[:min(len(b), 8)], mergeMagicNR)
	}
	if len(st.Children) < 2 || len(st.Children) > MaxChildren {
		return nil, fmt.Errorf("%w: a statement of %d children", ErrMerged, len(st.Children))
	}
	f, err := splitMergeFile(b, "carried")
	if err != nil {
		return nil, err
	}
	m := &MergedNR{Message: st.Message, Epoch: st.Epoch, Keys: st.Keys, Children: st.Children, LogInvRate: f.rate, Batch: f.batch, Proof: f.proof}
	r := &byteReader{b: f.section}
	for i := range st.Children {
		var d DeferredReveal
		switch r.u64() {
		case 0:
			d.Z = r.e()
			d.ChiIn, d.S, d.ChiInPrime, d.Tau, d.ChiOut = r.es(), r.es(), r.es(), r.es(), r.es()
			d.VA, d.VB, d.Key = r.e(), r.e(), r.e()
		case 1:
			if m.Subs == nil {
				m.Subs = make([]*MergedChildNR, len(st.Children))
			}
			m.Subs[i] = r.record(1)
		default:
			r.fail()
		}
		if r.err != nil {
			return nil, r.err
		}
		m.Deferred = append(m.Deferred, d)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes past the carried claims", ErrMerged, len(r.b))
	}
	if d := m.Depth(); d != st.Depth {
		return nil, fmt.Errorf("%w: the statement says depth %d, the file's children make it %d", ErrMerged, st.Depth, d)
	}
	return m, nil
}

// VerifyMergedNR parses and verifies a no-reveal merged proof file against its
// statement.
func VerifyMergedNR(b []byte, st MergeStatement) error {
	m, err := ParseMergedNR(b, st)
	if err != nil {
		return err
	}
	return m.Verify()
}

// StatementOfNR reads a no-reveal merged proof's PROOF.json statement: as StatementOf,
// of any depth.
func StatementOfNR(st flows.Statement) (MergeStatement, error) {
	return readMergeStatement(st, false)
}

func init() {
	registerMergeKind("merged-nr", MergeLabelNR, IsMergedNRProof, StatementOfNR, func(data []byte, ms MergeStatement) (int, func() error, error) {
		m, err := ParseMergedNR(data, ms)
		if err != nil {
			return 0, nil, err
		}
		return m.LogInvRate, m.Verify, nil
	})
}
