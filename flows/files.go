package flows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/transcript"
)

// Proof forms: the reference prover's pruned wire form, and the raw form with one
// full Merkle path per query (what the reference verifier expands a wire proof into).
const (
	FormatWire = "wire"
	FormatRaw  = "raw"
)

// CheckFormat reports whether format names a proof form ("" is not one).
func CheckFormat(format string) error {
	if format != FormatWire && format != FormatRaw {
		return fmt.Errorf("flows: proof format %q, want wire or raw", format)
	}
	return nil
}

// Meta is the statement and packaging of a proof file, written beside it as
// PROOF.json.
type Meta struct {
	Flow       string `json:"flow"`
	N          int    `json:"n"`
	LogInvRate int    `json:"log_inv_rate"`
	Label      string `json:"label"`
	Format     string `json:"format"`
	// Statement is the flow's public data beyond n, a JSON object whose fields sit
	// beside the ones above in PROOF.json (absent for flows without any).
	Statement json.RawMessage `json:"-"`
}

// metaFields are Meta's own keys; any other key of PROOF.json is statement data.
var metaFields = map[string]bool{"flow": true, "n": true, "log_inv_rate": true, "label": true, "format": true}

type metaBase Meta // Meta without its methods

// MarshalJSON writes Meta's fields, then the statement's fields beside them.
func (m Meta) MarshalJSON() ([]byte, error) {
	base, err := json.Marshal(metaBase(m))
	if err != nil {
		return nil, err
	}
	st := bytes.TrimSpace(m.Statement)
	if len(st) == 0 {
		return base, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(st, &fields); err != nil {
		return nil, fmt.Errorf("flows: proof metadata: the statement is not a JSON object: %w", err)
	}
	for k := range fields {
		if metaFields[k] {
			return nil, fmt.Errorf("flows: proof metadata: the statement's field %q clashes with the metadata's own", k)
		}
	}
	if len(fields) == 0 {
		return base, nil
	}
	out := append(base[:len(base)-1:len(base)-1], ',')
	return append(out, st[1:]...), nil
}

// UnmarshalJSON reads Meta's fields and gathers every other field into Statement.
func (m *Meta) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	own, rest := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for k, v := range fields {
		if metaFields[k] {
			own[k] = v
		} else {
			rest[k] = v
		}
	}
	ob, _ := json.Marshal(own)
	var base metaBase
	if err := json.Unmarshal(ob, &base); err != nil {
		return err
	}
	*m = Meta(base)
	if len(rest) > 0 {
		m.Statement, _ = json.Marshal(rest)
	}
	return nil
}

// NewMetaFor describes a proof of st in format.
func NewMetaFor(f Flow, st Statement, format string) Meta {
	return Meta{Flow: f.Name(), N: st.N, LogInvRate: st.LogInvRate, Label: f.Label(), Format: format, Statement: st.Data}
}

// Proves is the statement the metadata describes.
func (m Meta) Proves() Statement {
	return Statement{Flow: m.Flow, N: m.N, LogInvRate: m.LogInvRate, Data: m.Statement}
}

// ParseMeta reads and checks a proof's metadata: no field given twice or in two
// letter cases (CheckJSONKeys), a registered flow, its label, a proof form, and a
// statement the flow accepts.
func ParseMeta(b []byte) (Meta, error) {
	if err := jsonKeys(b); err != nil {
		return Meta{}, fmt.Errorf("flows: proof metadata: %w", err)
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return Meta{}, fmt.Errorf("flows: proof metadata: %w", err)
	}
	if err := CheckMeta(m); err != nil {
		return Meta{}, err
	}
	return m, nil
}

// CheckMeta is ParseMeta's check of metadata already read (a registered flow, its
// label, a proof form, and a statement the flow accepts), for a caller that
// completed the statement itself (from a flow's Sidecar file).
func CheckMeta(m Meta) error {
	f, err := Lookup(m.Flow)
	if err != nil {
		return fmt.Errorf("flows: proof metadata: %w", err)
	}
	if k, ok := ProofKindOfMeta(m); ok {
		return k.checkMeta(m) // a registered kind's metadata (kinds.go)
	}
	switch {
	case m.Label != f.Label():
		return fmt.Errorf("flows: proof metadata: label %q, want %q", m.Label, f.Label())
	case m.Format != FormatWire && m.Format != FormatRaw:
		return fmt.Errorf("flows: proof metadata: format %q, want wire or raw", m.Format)
	}
	if err := f.Check(m.N, m.LogInvRate); err != nil {
		return fmt.Errorf("flows: proof metadata: %w", err)
	}
	if err := CheckStatement(f, m.Proves()); err != nil {
		return fmt.Errorf("flows: proof metadata: %w", err)
	}
	return nil
}

// EncodeProof serialises a proof in format (wire unless "raw").
func EncodeProof(p *transcript.Proof, format string) []byte {
	if format == FormatRaw {
		return p.MarshalRaw()
	}
	return p.MarshalWire()
}

// DecodeProof parses a proof in format ("wire" or "raw").
func DecodeProof(data []byte, format string) (*transcript.Proof, error) {
	var p transcript.Proof
	var err error
	if format == FormatRaw {
		err = p.UnmarshalRaw(data)
	} else {
		err = p.UnmarshalWire(data)
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// WriteProof writes a proof in meta.Format to path and its metadata to path.json,
// both atomically, the metadata first (a proof file never exists without it).
func WriteProof(path string, p *transcript.Proof, meta Meta) error {
	return WriteProofBytes(path, EncodeProof(p, meta.Format), meta)
}

// WriteProofBytes is WriteProof for a proof already encoded in meta.Format. A
// flow with a Sidecar has its sidecar file written first.
func WriteProofBytes(path string, data []byte, meta Meta) error {
	meta, err := writeSidecar(path, meta)
	if err != nil {
		return err
	}
	mb, _ := json.MarshalIndent(meta, "", "  ")
	if err := atomicfile.Write(path+".json", append(mb, '\n')); err != nil {
		return err
	}
	return atomicfile.Write(path, data)
}

// VerifyBytes decodes a proof in meta.Format (both forms tried when it is empty) and
// verifies it against the statement meta describes, with the flow meta names. It
// returns the raw form of the accepted proof (nil for a registered ProofKind's
// proof, which is verified by its kind and has no raw form).
func VerifyBytes(data []byte, meta Meta) (*transcript.Proof, error) {
	raw, _, err := VerifyBytesForm(data, meta)
	return raw, err
}

// VerifyBytesForm is VerifyBytes that also returns the form the proof was read in
// (meta.Format, or the form detected when it is empty). When the form is detected
// and neither decoder reads the bytes, the error gives both decoders' reasons; when
// one reads them, the error is that form's verification error.
func VerifyBytesForm(data []byte, meta Meta) (*transcript.Proof, string, error) {
	f, err := Lookup(meta.Flow)
	if err != nil {
		return nil, "", err
	}
	if ok, form, err := verifyKind(data, meta); ok {
		return nil, form, err // a registered kind's proof (kinds.go): no raw form
	}
	if meta.Format != "" {
		if err := CheckFormat(meta.Format); err != nil {
			return nil, "", err
		}
		p, err := DecodeProof(data, meta.Format)
		if err != nil {
			return nil, meta.Format, fmt.Errorf("flows: %s form: %w", meta.Format, err)
		}
		raw, err := f.Verify(p, meta.Proves())
		return raw, meta.Format, err
	}
	var reasons []string
	for _, form := range []string{FormatWire, FormatRaw} {
		p, err := DecodeProof(data, form)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("as %s: %v", form, err))
			continue
		}
		raw, err := f.Verify(p, meta.Proves())
		return raw, form, err
	}
	return nil, "", fmt.Errorf("flows: the proof is in neither form: %s", strings.Join(reasons, "; "))
}

// DescribeStatement says what a verifier checks for st with flow f. For a Flock flow
// that is the slot count 2^NLog, not N: every N with the same ⌈log2 N⌉ (at least 3)
// gives the same statement and verifies the same proof, as in the reference.
func DescribeStatement(f Flow, st Statement) string {
	if fl, ok := f.(*Flock); ok && fl.spec.Describe != nil {
		return fl.spec.Describe(st)
	}
	if fl, ok := f.(*Flock); ok {
		if sh, err := fl.Shape(st.N, st.LogInvRate); err == nil {
			lo := 1
			if sh.NLog > 3 {
				lo = 1<<(sh.NLog-1) + 1
			}
			return fmt.Sprintf("flow %s, 2^%d slots (n = %d; the proof binds the slot count, so any n in %d..%d verifies it), log_inv_rate %d",
				f.Name(), sh.NLog, st.N, lo, min(1<<sh.NLog, fl.MaxN()), st.LogInvRate)
		}
	}
	return fmt.Sprintf("flow %s, n = %d, log_inv_rate %d", f.Name(), st.N, st.LogInvRate)
}
