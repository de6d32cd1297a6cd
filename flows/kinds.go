package flows

import (
	"fmt"
	"sync"
)

// Proof kinds beside a flow's own encodings (wire and raw): a package built on a flow
// (the recursion package's merged xmss-aggregate proofs) registers how its proof
// files are recognised and verified, so that CheckMeta and VerifyBytes take them as
// they take the flow's own proofs. A kind's PROOF.json names the flow whose statement
// it proves and carries the kind's own label.

// ProofKind is one kind of proof file.
type ProofKind struct {
	// Name is the form VerifyBytesForm reports for it (e.g. "merged").
	Name string
	// Flow is the flow whose statement its proofs prove; Label the label its
	// metadata carries (its transcript's).
	Flow, Label string
	// Is reports whether a proof file is of this kind (by its magic).
	Is func(data []byte) bool
	// CheckStatement checks a statement of this kind (its data, n and rate).
	CheckStatement func(st Statement) error
	// Verify checks a proof file of this kind against a statement.
	Verify func(data []byte, st Statement) error
}

var proofKinds struct {
	sync.RWMutex
	list []ProofKind
}

// RegisterProofKind adds a kind of proof file (called once per kind, from an init).
func RegisterProofKind(k ProofKind) {
	if k.Name == "" || k.Flow == "" || k.Label == "" || k.Is == nil || k.CheckStatement == nil || k.Verify == nil {
		panic("flows: incomplete ProofKind " + k.Name)
	}
	proofKinds.Lock()
	defer proofKinds.Unlock()
	for _, o := range proofKinds.list {
		if o.Name == k.Name || (o.Flow == k.Flow && o.Label == k.Label) {
			panic(fmt.Sprintf("flows: proof kind %q registered twice", k.Name))
		}
	}
	proofKinds.list = append(proofKinds.list, k)
}

// ProofKindOf returns the registered kind of a proof file, if any.
func ProofKindOf(data []byte) (ProofKind, bool) {
	proofKinds.RLock()
	defer proofKinds.RUnlock()
	for _, k := range proofKinds.list {
		if k.Is(data) {
			return k, true
		}
	}
	return ProofKind{}, false
}

// ProofKindOfMeta returns the registered kind whose flow and label the metadata
// gives, if any.
func ProofKindOfMeta(m Meta) (ProofKind, bool) {
	proofKinds.RLock()
	defer proofKinds.RUnlock()
	for _, k := range proofKinds.list {
		if k.Flow == m.Flow && k.Label == m.Label {
			return k, true
		}
	}
	return ProofKind{}, false
}

// checkMeta is CheckMeta for a kind's metadata: the wire format (a kind has one
// encoding) and a statement the kind accepts.
func (k ProofKind) checkMeta(m Meta) error {
	if m.Format != FormatWire {
		return fmt.Errorf("flows: proof metadata: a %s proof's format is %q, not %q", k.Name, FormatWire, m.Format)
	}
	if err := k.CheckStatement(m.Proves()); err != nil {
		return fmt.Errorf("flows: proof metadata: %w", err)
	}
	return nil
}

// verifyKind is VerifyBytesForm for data of a registered kind, or for metadata of
// one: both must agree.
func verifyKind(data []byte, meta Meta) (handled bool, form string, err error) {
	k, isData := ProofKindOf(data)
	km, isMeta := ProofKindOfMeta(meta)
	switch {
	case !isData && !isMeta:
		return false, "", nil
	case isMeta && !isData:
		return true, "", fmt.Errorf("flows: the metadata describes a %s proof (label %q) but the file is not one", km.Name, km.Label)
	case meta.Flow != k.Flow || (meta.Label != "" && meta.Label != k.Label):
		return true, k.Name, fmt.Errorf("flows: a %s proof file, but the metadata describes a %s proof labelled %q (want flow %s, label %q)", k.Name, meta.Flow, meta.Label, k.Flow, k.Label)
	case meta.Format != "" && meta.Format != FormatWire:
		return true, k.Name, fmt.Errorf("flows: a %s proof file has one form; the metadata says %q", k.Name, meta.Format)
	}
	if err := k.CheckStatement(meta.Proves()); err != nil {
		return true, k.Name, err
	}
	return true, k.Name, k.Verify(data, meta.Proves())
}
