package recursion

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/leanpipe/leanpipe/xmss"
)

// A merged proof's two files, as a leaf's: the proof bytes (ProofBytes: the revealed
// interfaces, then the segmented proof's wire form) and the statement kept in
// PROOF.json (MergeStatement's JSON: a leaf's message, epoch and public keys, plus
// depth and the children's sizes and rates).

// MergeStatement is what a merged proof proves, as PROOF.json records it.
type MergeStatement struct {
	Message  xmss.Message
	Epoch    uint32
	Keys     []xmss.PublicKey
	Depth    int // 1 for a merge of leaves
	Children []ChildInfo
}

type childJSON struct {
	N          int `json:"n"`
	LogInvRate int `json:"log_inv_rate"`
}

type mergeJSON struct {
	Message    json.RawMessage `json:"message"`
	Epoch      json.RawMessage `json:"epoch"`
	PublicKeys json.RawMessage `json:"public_keys"`
	Depth      int             `json:"depth"`
	Children   []childJSON     `json:"children"`
}

// Statement returns m's statement.
func (m *Merged) Statement() MergeStatement {
	return MergeStatement{Message: m.Message, Epoch: m.Epoch, Keys: m.Keys, Depth: 1, Children: m.Children}
}

// MarshalJSON writes {"message", "epoch", "public_keys" (as a leaf's), "depth",
// "children": [{"n", "log_inv_rate"}, …]}.
func (s MergeStatement) MarshalJSON() ([]byte, error) {
	leaf, err := aggregate.Aggregate{Message: s.Message, Epoch: s.Epoch, PublicKeys: s.Keys}.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var j mergeJSON
	if err := json.Unmarshal(leaf, &j); err != nil {
		return nil, err
	}
	j.Depth = s.Depth
	for _, c := range s.Children {
		j.Children = append(j.Children, childJSON{c.N, c.LogInvRate})
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the JSON form strictly (the leaf fields as a leaf's statement
// reads them; depth ≥ 1; 2 to MaxChildren children whose sizes add up to the keys).
func (s *MergeStatement) UnmarshalJSON(b []byte) error {
	var j mergeJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("%w: merged statement: %v", ErrMergeInput, err)
	}
	leaf, err := json.Marshal(struct {
		Message    json.RawMessage `json:"message"`
		Epoch      json.RawMessage `json:"epoch"`
		PublicKeys json.RawMessage `json:"public_keys"`
	}{j.Message, j.Epoch, j.PublicKeys})
	if err != nil {
		return err
	}
	var ag aggregate.Aggregate
	if err := ag.UnmarshalJSON(leaf); err != nil {
		return fmt.Errorf("%w: merged statement: %w", ErrMergeInput, err)
	}
	out := MergeStatement{Message: ag.Message, Epoch: ag.Epoch, Keys: ag.PublicKeys, Depth: j.Depth}
	if j.Depth < 1 {
		return fmt.Errorf("%w: merged statement of depth %d", ErrMergeInput, j.Depth)
	}
	if len(j.Children) < 2 || len(j.Children) > MaxChildren {
		return fmt.Errorf("%w: merged statement of %d children", ErrMergeInput, len(j.Children))
	}
	total := 0
	for i, c := range j.Children {
		if c.N < 1 || c.N > aggregate.MaxSigners || c.LogInvRate < 1 || c.LogInvRate > 4 {
			return fmt.Errorf("%w: merged statement: child %d of %d keys at rate %d", ErrMergeInput, i, c.N, c.LogInvRate)
		}
		total += c.N
		out.Children = append(out.Children, ChildInfo{c.N, c.LogInvRate})
	}
	if total != len(out.Keys) {
		return fmt.Errorf("%w: merged statement: the children hold %d keys, the list %d", ErrMergeInput, total, len(out.Keys))
	}
	*s = out
	return nil
}

const mergeMagic = "LPMERGE1"

// mergeHeader is the file's header length: the magic and three u64s.
const mergeHeader = 32

// ProofBytes is the merged proof's file: the magic, the log inverse rate, the revealed
// interfaces' length and the batch's length (u64 LE each), the interfaces' bytes, the
// batch of the children's matrix claims (wire form), then the proof's wire form.
func (m *Merged) ProofBytes() []byte {
	var iface []byte
	for i := range m.Interfaces {
		iface = m.Interfaces[i].appendBinary(iface)
	}
	batch := m.Batch.MarshalWire()
	b := append([]byte(mergeMagic), make([]byte, mergeHeader-len(mergeMagic))...)
	binary.LittleEndian.PutUint64(b[8:], uint64(m.LogInvRate))
	binary.LittleEndian.PutUint64(b[16:], uint64(len(iface)))
	binary.LittleEndian.PutUint64(b[24:], uint64(len(batch)))
	return append(append(append(b, iface...), batch...), m.Proof.MarshalWire()...)
}

// IsMergedProof reports whether b starts as a merged proof file (of any version:
// ParseMerged reads this version's and names the difference for others).
func IsMergedProof(b []byte) bool { return bytes.HasPrefix(b, []byte(mergeMagic[:7])) }

// ParseMerged reads a merged proof file against its statement.
func ParseMerged(b []byte, st MergeStatement) (*Merged, error) {
	if st.Depth != 1 {
		return nil, fmt.Errorf("%w: a merged proof of depth %d (this version verifies merges of leaves, depth 1)", ErrMerged, st.Depth)
	}
	if !IsMergedProof(b) {
		return nil, fmt.Errorf("%w: not a merged proof file", ErrMerged)
	}
	if !bytes.HasPrefix(b, []byte(mergeMagic)) || len(b) < mergeHeader {
		return nil, fmt.Errorf("%w: a merged proof file of another version (%q; this version reads %q)", ErrMerged, b[:min(len(b), 8)], mergeMagic)
	}
	f, err := splitMergeFile(b, "interface")
	if err != nil {
		return nil, err
	}
	m := &Merged{Message: st.Message, Epoch: st.Epoch, Keys: st.Keys, Children: st.Children, LogInvRate: f.rate, Batch: f.batch, Proof: f.proof}
	r := &byteReader{b: f.section}
	for range st.Children {
		ci, err := r.childInterface()
		if err != nil {
			return nil, err
		}
		m.Interfaces = append(m.Interfaces, ci)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes past the interfaces", ErrMerged, len(r.b))
	}
	return m, nil
}

// mergeFile is a merged proof file split by its header (the magic, the log inverse
// rate, the section's and the batch's lengths): the section (what the children
// carry or reveal, named what in errors), the batch and the proof, decoded.
type mergeFile struct {
	rate         int
	section      []byte
	batch, proof *transcript.Proof
}

func splitMergeFile(b []byte, what string) (mergeFile, error) {
	rate := binary.LittleEndian.Uint64(b[8:])
	n := binary.LittleEndian.Uint64(b[16:])
	nb := binary.LittleEndian.Uint64(b[24:])
	if rate < 1 || rate > 4 || n > uint64(len(b)-mergeHeader) || nb > uint64(len(b)-mergeHeader)-n {
		return mergeFile{}, fmt.Errorf("%w: a header of rate %d, %d %s bytes and %d batch bytes", ErrMerged, rate, n, what, nb)
	}
	f := mergeFile{rate: int(rate), section: b[mergeHeader : mergeHeader+n], batch: new(transcript.Proof), proof: new(transcript.Proof)}
	if err := f.batch.UnmarshalWire(b[mergeHeader+n : mergeHeader+n+nb]); err != nil {
		return mergeFile{}, fmt.Errorf("%w: the batch: %w", ErrMerged, err)
	}
	if err := f.proof.UnmarshalWire(b[mergeHeader+n+nb:]); err != nil {
		return mergeFile{}, fmt.Errorf("%w: %w", ErrMerged, err)
	}
	return f, nil
}

// VerifyMerged parses and verifies a merged proof file against its statement.
func VerifyMerged(b []byte, st MergeStatement) error {
	m, err := ParseMerged(b, st)
	if err != nil {
		return err
	}
	return m.Verify()
}

// byteReader reads an interface's encoding (appendBinary), each list's length
// bounded by what the rest can hold.
type byteReader struct {
	b   []byte
	err error
	// records counts the merged children's records read (ParseMergedNR's bound).
	records int
}

func (r *byteReader) u64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

// uvarint reads an unsigned varint in its one shortest form: a malformed one, one
// past 64 bits, or one padded with zero groups (0x83 0x00 for 3) fails the reader, so
// that a merge has exactly one file.
func (r *byteReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || n != len(binary.AppendUvarint(nil, v)) {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *byteReader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("%w: a truncated interface", ErrMerged)
	}
	r.b = nil
}

func (r *byteReader) count(size int) int {
	n := r.u64()
	if n > uint64(len(r.b)/size) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *byteReader) e() field.E {
	return field.E{C0: field.K(r.u64()), C1: field.K(r.u64()), C2: field.K(r.u64())}
}

func (r *byteReader) es() []field.E {
	out := make([]field.E, r.count(24))
	for i := range out {
		out[i] = r.e()
	}
	return out
}

func (r *byteReader) words() [][4]uint64 {
	out := make([][4]uint64, r.count(32))
	for i := range out {
		for k := range 4 {
			out[i][k] = r.u64()
		}
	}
	return out
}

func (r *byteReader) childInterface() (ChildInterface, error) {
	var ci ChildInterface
	ci.Challenges = r.es()
	roots := r.count(32)
	for range roots {
		var d merkle.Digest
		copy(d[:], r.b[:32])
		r.b = r.b[32:]
		ci.Roots = append(ci.Roots, d)
	}
	ci.VA, ci.VB = r.e(), r.e()
	ci.S = r.es()
	ci.Values.VA, ci.Values.VB, ci.Values.Key = r.e(), r.e(), r.e()
	ci.Enforced = r.es()
	ci.Induced = r.es()
	ci.Nonces = r.es()
	ci.Boundaries = r.words()
	ci.Grinds = r.words()
	return ci, r.err
}
