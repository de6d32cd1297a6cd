package recursion

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/transcript"
)

// TestParseMergedNRBounds: a file whose merged children nest deeper than maxNesting is
// refused while reading, before any layout, and so is one of other kinds' bytes.
func TestParseMergedNRBounds(t *testing.T) {
	nest := func(depth int) *MergedChildNR {
		mc := &MergedChildNR{Children: []ChildInfo{{1, 2}, {1, 2}}}
		for range depth - 1 {
			mc = &MergedChildNR{Children: []ChildInfo{{2, 2}, {1, 2}}, Subs: []*MergedChildNR{mc, nil}}
		}
		return mc
	}
	file := func(mc *MergedChildNR) []byte {
		carried := binary.LittleEndian.AppendUint64(nil, 1)
		carried = mc.appendBinary(carried, false)
		carried = binary.LittleEndian.AppendUint64(carried, 0) // a leaf, then truncated
		empty := (&transcript.Proof{}).MarshalWire()
		b := append([]byte(mergeMagicNR), make([]byte, mergeHeader-len(mergeMagicNR))...)
		binary.LittleEndian.PutUint64(b[8:], 2)
		binary.LittleEndian.PutUint64(b[16:], uint64(len(carried)))
		binary.LittleEndian.PutUint64(b[24:], uint64(len(empty)))
		return append(append(append(b, carried...), empty...), empty...)
	}
	st := MergeStatement{Depth: 2, Children: []ChildInfo{{2, 2}, {1, 2}}}
	if _, err := ParseMergedNR(file(nest(maxNesting+1)), st); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("nesting %d: %v", maxNesting+1, err)
	}
	if _, err := ParseMergedNR(file(nest(maxNesting)), st); err == nil || strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("nesting %d refused for its depth or accepted: %v", maxNesting, err)
	}
	if _, err := ParseMergedNR([]byte("LPMERGE1 and more"), st); err == nil {
		t.Fatal("a revealing merge's magic parsed as a no-reveal one")
	}
}

// TestRecordShapeVarints: a record's shape (children's count, sizes, rates, kinds)
// round-trips through its varint encoding, a trimmed descendant costs a few bytes, and
// an overlong varint or a kind other than 0 and 1 is refused without a panic.
func TestRecordShapeVarints(t *testing.T) {
	leafMerge := &MergedChildNR{Children: []ChildInfo{{200, 2}, {70000, 1}}}
	mc := &MergedChildNR{Children: []ChildInfo{{70200, 2}, {3, 4}}, Subs: []*MergedChildNR{leafMerge, nil}}
	b := mc.appendBinary(nil, true)
	// Each field is its varint's length: a count 1 byte, a size of 70,200 3 bytes, 200
	// 2 bytes, a rate and a kind 1 byte each.
	want := 1 + (3 + 1 + 1) + (1 + (2 + 1 + 1) + (3 + 1 + 1)) + (1 + 1 + 1)
	if len(b) != want {
		t.Fatalf("a trimmed record of 4 descendants in %d bytes, want %d", len(b), want)
	}
	r := &byteReader{b: b}
	got := r.record(2)
	if r.err != nil || len(r.b) != 0 {
		t.Fatalf("read back: %v, %d bytes left", r.err, len(r.b))
	}
	if got.Children[0] != mc.Children[0] || got.Children[1] != mc.Children[1] || got.Subs[1] != nil ||
		got.Subs[0].Children[0] != leafMerge.Children[0] || got.Subs[0].Children[1] != leafMerge.Children[1] {
		t.Fatalf("read back %+v, want %+v", got, mc)
	}
	for _, bad := range [][]byte{
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, // an overlong count
		{2, 1, 2, 7, 1, 2, 0},               // a kind of 7
		{2, 1, 2, 0, 1},                     // truncated
		{MaxChildren + 1, 1, 2, 0, 1, 2, 0}, // more children than a merge takes
	} {
		r := &byteReader{b: bad}
		if r.record(2); r.err == nil {
			t.Fatalf("% x read without an error", bad)
		}
	}
}
