package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
)

// proveAggregate proves a generated signatures file of n signers into dir and
// returns the proof's path and the input.
func proveAggregate(t *testing.T, dir string, n int, seed uint64) (string, *aggregate.Input) {
	t.Helper()
	sigs, in := signaturesFile(t, dir, "sigs.json", n, seed)
	out := filepath.Join(dir, "agg.proof.bin")
	if code, o, e := run(t, "prove", "--signatures", sigs, "--out", out, "--workers", "2"); code != 0 {
		t.Fatalf("prove: exit %d: %s %s", code, o, e)
	}
	return out, in
}

// TestVerifyKeys: verify of an aggregate prints the number of keys and the SHA-256
// of the keys concatenated in order (lowercase hex), --show-keys lists them; a
// sidecar giving a field twice or in two letter cases is refused (exit 2).
func TestVerifyKeys(t *testing.T) {
	dir := t.TempDir()
	out, in := proveAggregate(t, dir, 2, 5)
	h := sha256.New()
	for _, s := range in.Signers {
		b := s.PublicKey.Bytes()
		h.Write(b[:])
	}
	want := "keys: 2, keys sha256:" + hex.EncodeToString(h.Sum(nil))
	code, o, _ := run(t, "verify", out)
	if code != 0 || !accepted(o) || !strings.Contains(o, want+"\n") || strings.Contains(o, "key 0:") {
		t.Fatalf("verify: %d %q, want a line %q", code, o, want)
	}
	code, o, _ = run(t, "verify", out, "--show-keys")
	if code != 0 || !strings.Contains(o, want+"\nkey 0: "+in.Signers[0].PublicKey.String()+"\nkey 1: "+in.Signers[1].PublicKey.String()+"\n") {
		t.Fatalf("verify --show-keys: %d %q", code, o)
	}

	mb, _ := os.ReadFile(out + ".json")
	for _, c := range []struct{ from, to, want string }{
		{`"n": 2,`, `"n": 2, "n": 1,`, `field "n" is given twice`},
		{`"epoch":`, `"Epoch": 1, "epoch":`, `differ only in case`},
		{`"message":`, `"message": "00", "message":`, `field "message" is given twice`},
	} {
		doc := strings.Replace(string(mb), c.from, c.to, 1)
		if doc == string(mb) {
			t.Fatalf("sidecar has no %q: %s", c.from, mb)
		}
		os.WriteFile(out+".json", []byte(doc), 0o644)
		if code, o, e := run(t, "verify", out); code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("sidecar with %s: exit %d, %q %q; want 2 and %q", c.to, code, o, e, c.want)
		}
	}
}
