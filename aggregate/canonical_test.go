package aggregate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/xmss"
)

// randomAggregate is a statement of n random distinct keys.
func randomAggregate(r *rand.Rand, n int) Aggregate {
	ag := Aggregate{Epoch: r.Uint32(), PublicKeys: make([]xmss.PublicKey, n)}
	for i := range ag.Message {
		ag.Message[i] = byte(r.Uint32())
	}
	for i := range ag.PublicKeys {
		var raw [xmss.PublicKeySize]byte
		for j := range raw {
			raw[j] = byte(r.Uint32())
		}
		pk, err := xmss.ParsePublicKey(raw[:])
		if err != nil {
			panic(err)
		}
		ag.PublicKeys[i] = pk
	}
	return ag
}

// agreesWithStrict fails t when the canonical reader accepts b and the strict one
// does not, or reads another statement.
func agreesWithStrict(t *testing.T, b []byte) (canonical bool) {
	t.Helper()
	fast, ok := parseCanonical(b)
	if !ok {
		return false
	}
	var strict Aggregate
	if err := strict.unmarshalStrict(b); err != nil {
		t.Fatalf("the canonical reader accepts %.80q…, the strict one refuses it: %v", b, err)
	}
	if !reflect.DeepEqual(fast, strict) {
		t.Fatalf("the canonical reader reads %.80q… as another statement than the strict one", b)
	}
	return true
}

// Statements as MarshalJSON writes them (0, 1, 3 and 400 keys, the epoch at its
// bounds) take the canonical path and read back; every one-byte change, insertion
// or deletion of a 3-key statement is read by the canonical path as the strict
// reader reads it, or left to it; the forms the canonical reader must leave to
// the strict one (spaces, uppercase hex, leading zeros, a repeated key, fields
// of a PROOF.json) are left to it.
func TestCanonicalStatement(t *testing.T) {
	r := testrand.New(t)
	for _, n := range []int{0, 1, 3, 400} {
		for _, epoch := range []uint32{0, 7, 1<<32 - 1} {
			ag := randomAggregate(r, n)
			ag.Epoch = epoch
			b, err := json.Marshal(ag)
			if err != nil {
				t.Fatal(err)
			}
			if !agreesWithStrict(t, b) {
				t.Fatalf("%d keys, epoch %d: MarshalJSON's output %.80q… is not read as canonical", n, epoch, b)
			}
			var back Aggregate
			if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, ag) {
				t.Fatalf("%d keys, epoch %d: read back as another statement (%v)", n, epoch, err)
			}
		}
	}
	ag := randomAggregate(r, 3)
	b, _ := json.Marshal(ag)
	alphabet := []byte(`0123456789abcdefABCDEF",:[]{} ` + "\n\\u-+.e")
	canonical := 0
	for i := range b {
		for _, c := range alphabet {
			changed := bytes.Clone(b)
			changed[i] = c
			inserted := append(append(bytes.Clone(b[:i]), c), b[i:]...)
			for _, v := range [][]byte{changed, inserted} {
				if agreesWithStrict(t, v) {
					canonical++
				}
			}
		}
		agreesWithStrict(t, append(bytes.Clone(b[:i]), b[i+1:]...))
	}
	if canonical == 0 {
		t.Fatal("no changed statement took the canonical path: the comparison exercises nothing")
	}
	hexKey := func(pk xmss.PublicKey) string { return pk.String() }
	msg := fmt.Sprintf("%x", ag.Message)
	k0, k1 := hexKey(ag.PublicKeys[0]), hexKey(ag.PublicKeys[1])
	for _, s := range []string{
		fmt.Sprintf(`{"message": "%s","epoch":5,"public_keys":["%s"]}`, msg, k0),
		fmt.Sprintf(`{"message":"%s","epoch":05,"public_keys":["%s"]}`, msg, k0),
		fmt.Sprintf(`{"message":"%s","epoch":5,"public_keys":["%s"]}`, bytes.ToUpper([]byte(msg)), k0),
		fmt.Sprintf(`{"message":"%s","epoch":5,"public_keys":["%s","%s"]}`, msg, k0, k0),
		fmt.Sprintf(`{"message":"%s","epoch":5,"public_keys":["%s","%s"],"n":2}`, msg, k0, k1),
		fmt.Sprintf(`{"message":"%s","epoch":4294967296,"public_keys":["%s"]}`, msg, k0),
		fmt.Sprintf(`{"message":"%s","epoch":5,"public_keys":["%s" ]}`, msg, k0),
		fmt.Sprintf(`{"epoch":5,"message":"%s","public_keys":["%s"]}`, msg, k0),
	} {
		if _, ok := parseCanonical([]byte(s)); ok {
			t.Errorf("%.90q… is read as canonical", s)
		}
	}
}

// FuzzCanonicalStatement: whatever the canonical reader accepts, the strict reader
// accepts as the same statement.
func FuzzCanonicalStatement(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2} {
		b, _ := json.Marshal(randomAggregate(r, n))
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { agreesWithStrict(t, b) })
}
