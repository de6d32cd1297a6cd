package flows

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestProofKind: a registered kind's metadata passes CheckMeta through its own
// statement check, its files are verified by its Verify, and a kind's file with
// another metadata (or a kind's metadata with another file) is refused.
func TestProofKind(t *testing.T) {
	errBad := errors.New("bad kind proof")
	RegisterProofKind(ProofKind{
		Name: "testkind", Flow: Name, Label: "test-kind-v0",
		Is: func(b []byte) bool { return bytes.HasPrefix(b, []byte("TESTKIND")) },
		CheckStatement: func(st Statement) error {
			if st.N != 7 {
				return errors.New("want n = 7")
			}
			return nil
		},
		Verify: func(b []byte, st Statement) error {
			if string(b) != "TESTKIND ok" {
				return errBad
			}
			return nil
		},
	})
	meta := Meta{Flow: Name, N: 7, LogInvRate: 1, Label: "test-kind-v0", Format: FormatWire}
	if err := CheckMeta(meta); err != nil {
		t.Fatal(err)
	}
	bad := meta
	bad.N = 8
	if err := CheckMeta(bad); err == nil || !strings.Contains(err.Error(), "want n = 7") {
		t.Fatalf("CheckMeta of a bad kind statement: %v", err)
	}
	bad = meta
	bad.Format = FormatRaw
	if err := CheckMeta(bad); err == nil {
		t.Fatal("CheckMeta took a raw kind proof")
	}
	raw, form, err := VerifyBytesForm([]byte("TESTKIND ok"), meta)
	if err != nil || form != "testkind" || raw != nil {
		t.Fatalf("verify: %v %q %v", err, form, raw)
	}
	if _, _, err := VerifyBytesForm([]byte("TESTKIND no"), meta); !errors.Is(err, errBad) {
		t.Fatalf("a bad kind proof: %v", err)
	}
	leafMeta := Meta{Flow: Name, N: 8, LogInvRate: 1, Label: Label, Format: FormatWire}
	if _, _, err := VerifyBytesForm([]byte("TESTKIND ok"), leafMeta); err == nil || !strings.Contains(err.Error(), "a testkind proof file, but the metadata describes") {
		t.Fatalf("a kind file with a flow's metadata: %v", err)
	}
	if _, _, err := VerifyBytesForm([]byte("not a kind file"), meta); err == nil || !strings.Contains(err.Error(), "the file is not one") {
		t.Fatalf("a kind's metadata with another file: %v", err)
	}
	// Registering it twice is a programmer error.
	defer func() {
		if recover() == nil {
			t.Fatal("a second registration did not panic")
		}
	}()
	RegisterProofKind(ProofKind{Name: "testkind", Flow: Name, Label: "x", Is: func([]byte) bool { return false },
		CheckStatement: func(Statement) error { return nil }, Verify: func([]byte, Statement) error { return nil }})
}
