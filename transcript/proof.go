package transcript

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
)

// Proof is a transcript's output: the scalar stream and the Merkle channel in raw form
// (Openings: one per query, phases concatenated), wire form (Phases: one pruned multi-path
// per opening phase), or both (as a Prover produces it). Phases == nil marks a proof
// without the wire form.
//
// Both byte forms are bincode 1 with fixed-width little-endian integers, every sequence
// prefixed by its u64 length, an E as c0, c1, c2 (u64 each), a digest as 32 raw bytes:
//
//	raw:  stream (u64 L, L × E), u64 Q, Q × (u64 W, W × u64 leaf word, u64 D, D × digest)
//	wire: stream (u64 L, L × E), u64 P, P × (u64 R, R × (u64 W, W × u64), u64 S, S × digest)
type Proof struct {
	Stream   []field.E
	Openings []merkle.RawOpening
	Phases   []merkle.Phase
}

// HasWire reports whether the proof carries the wire form (or has no openings at all).
func (p *Proof) HasWire() bool { return p.Phases != nil || len(p.Openings) == 0 }

func (p *Proof) streamSize() int { return 8 + 24*len(p.Stream) }

func (p *Proof) appendStream(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(p.Stream)))
	for _, x := range p.Stream {
		b = binary.LittleEndian.AppendUint64(b, uint64(x.C0))
		b = binary.LittleEndian.AppendUint64(b, uint64(x.C1))
		b = binary.LittleEndian.AppendUint64(b, uint64(x.C2))
	}
	return b
}

func appendWords(b []byte, w []uint64) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(w)))
	for _, x := range w {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return b
}

func appendDigests(b []byte, d []merkle.Digest) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(d)))
	for i := range d {
		b = append(b, d[i][:]...)
	}
	return b
}

// MarshalRaw encodes the raw form.
func (p *Proof) MarshalRaw() []byte {
	size := p.streamSize() + 8
	for _, o := range p.Openings {
		size += 16 + 8*len(o.Leaf) + 32*len(o.Path)
	}
	b := make([]byte, 0, size)
	b = p.appendStream(b)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(p.Openings)))
	for _, o := range p.Openings {
		b = appendWords(b, o.Leaf)
		b = appendDigests(b, o.Path)
	}
	return b
}

// MarshalWire encodes the wire form. It panics if the proof has raw openings but no
// phases (the pruned form cannot be rebuilt without the protocol's queries).
func (p *Proof) MarshalWire() []byte {
	if !p.HasWire() {
		panic("transcript: MarshalWire on a proof without the wire form")
	}
	size := p.streamSize() + 8
	for _, ph := range p.Phases {
		size += 16 + 32*len(ph.Siblings)
		for _, r := range ph.Rows {
			size += 8 + 8*len(r)
		}
	}
	b := make([]byte, 0, size)
	b = p.appendStream(b)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(p.Phases)))
	for _, ph := range p.Phases {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(ph.Rows)))
		for _, r := range ph.Rows {
			b = appendWords(b, r)
		}
		b = appendDigests(b, ph.Siblings)
	}
	return b
}

// reader decodes bincode strictly: every length is checked against the bytes left before
// anything is allocated from it.
type reader struct {
	b   []byte
	off int
}

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) u64() (uint64, error) {
	if r.remaining() < 8 {
		return 0, fmt.Errorf("%w: truncated at byte %d", ErrMalformed, r.off)
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v, nil
}

// count reads a length prefix of items (named by their plural, what) that take at
// least itemSize bytes each; exact says whether every item takes exactly itemSize.
// A count the bytes left cannot hold is an error comparing bytes with bytes.
func (r *reader) count(itemSize int, what string, exact bool) (int, error) {
	at := r.off
	n, err := r.u64()
	if err != nil {
		return 0, err
	}
	if n > uint64(r.remaining()/itemSize) {
		need := "more than " + commas(uint64(math.MaxInt64))
		if n <= uint64(math.MaxInt64/itemSize) {
			need = commas(n * uint64(itemSize))
			if !exact {
				need = "at least " + need
			}
		}
		return 0, fmt.Errorf("%w: at byte %d, %s %s need %s bytes, %s left", ErrMalformed, at, commas(n), what, need, commas(uint64(r.remaining())))
	}
	return int(n), nil
}

// commas formats n with thousands separators.
func commas(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func (r *reader) stream() ([]field.E, error) {
	n, err := r.count(24, "stream scalars", true)
	if err != nil {
		return nil, err
	}
	s := make([]field.E, n)
	for i := range s {
		b := r.b[r.off : r.off+24]
		s[i] = field.E{
			C0: field.K(binary.LittleEndian.Uint64(b[0:])),
			C1: field.K(binary.LittleEndian.Uint64(b[8:])),
			C2: field.K(binary.LittleEndian.Uint64(b[16:])),
		}
		r.off += 24
	}
	return s, nil
}

func (r *reader) words() ([]uint64, error) {
	n, err := r.count(8, "words", true)
	if err != nil {
		return nil, err
	}
	w := make([]uint64, n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(r.b[r.off:])
		r.off += 8
	}
	return w, nil
}

func (r *reader) digests() ([]merkle.Digest, error) {
	n, err := r.count(32, "digests", true)
	if err != nil {
		return nil, err
	}
	d := make([]merkle.Digest, n)
	for i := range d {
		copy(d[i][:], r.b[r.off:r.off+32])
		r.off += 32
	}
	return d, nil
}

func (r *reader) finish() error {
	if r.remaining() != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrMalformed, r.remaining())
	}
	return nil
}

// UnmarshalRaw decodes the raw form into p (replacing its contents; Phases becomes nil).
func (p *Proof) UnmarshalRaw(data []byte) error {
	r := &reader{b: data}
	stream, err := r.stream()
	if err != nil {
		return err
	}
	q, err := r.count(16, "openings", false)
	if err != nil {
		return err
	}
	openings := make([]merkle.RawOpening, q)
	for i := range openings {
		if openings[i].Leaf, err = r.words(); err != nil {
			return err
		}
		if openings[i].Path, err = r.digests(); err != nil {
			return err
		}
	}
	if err := r.finish(); err != nil {
		return err
	}
	*p = Proof{Stream: stream, Openings: openings}
	return nil
}

// UnmarshalWire decodes the wire form into p (replacing its contents; Openings becomes
// nil until a verifier expands the phases).
func (p *Proof) UnmarshalWire(data []byte) error {
	r := &reader{b: data}
	stream, err := r.stream()
	if err != nil {
		return err
	}
	np, err := r.count(16, "phases", false)
	if err != nil {
		return err
	}
	phases := make([]merkle.Phase, np)
	for i := range phases {
		nr, err := r.count(8, "rows", false)
		if err != nil {
			return err
		}
		rows := make([][]uint64, nr)
		for k := range rows {
			if rows[k], err = r.words(); err != nil {
				return err
			}
		}
		sib, err := r.digests()
		if err != nil {
			return err
		}
		phases[i] = merkle.Phase{Rows: rows, Siblings: sib}
	}
	if err := r.finish(); err != nil {
		return err
	}
	*p = Proof{Stream: stream, Phases: phases}
	return nil
}
