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
