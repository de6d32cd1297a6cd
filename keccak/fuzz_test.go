package keccak

import (
	"bytes"
	"fmt"
	"testing"
)

// The statement's decoder never panics, and its compact fast path reads exactly
// what encoding/json reads: the same statement, or an error from both.
func FuzzStatementJSON(f *testing.F) {
	in := GenerateInput(1, 1)
	good, _ := Statement{Permutations: 1, States: in.States()}.MarshalJSON()
	f.Add(good)
	f.Add([]byte(`{"permutations":1,"states":""}`))
	f.Add([]byte(`{"permutations":1,"states":"AAAA\n"}`))
	f.Add([]byte(`{"permutations": 1, "states": "AAAA"}`))
	// The first states character written as a JSON escape: the same statement.
	i := bytes.Index(good, []byte(`"states":"`)) + len(`"states":"`)
	esc := append(append(bytes.Clone(good[:i]), fmt.Sprintf(`\u%04x`, good[i])...), good[i+1:]...)
	f.Add(esc)
	var s Statement
	if err := s.UnmarshalJSON(esc); err != nil || !bytes.Equal(s.States, in.States()) {
		f.Fatalf("a JSON escape in the states: %v", err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Statement
		err := s.UnmarshalJSON(b)
		n, states, ok := parseCompact(b)
		if !ok {
			return
		}
		var fast, slow Statement
		errFast := fast.fromParts(n, states)
		var errSlow error
		if n2, st2, err := parseJSON(b); err != nil {
			errSlow = err
		} else {
			errSlow = slow.fromParts(n2, st2)
		}
		if (errFast == nil) != (errSlow == nil) || (err == nil) != (errFast == nil) {
			t.Fatalf("%q: fast path %v, encoding/json %v", b, errFast, errSlow)
		}
		if errFast == nil && (fast.Permutations != slow.Permutations || !bytes.Equal(fast.States, slow.States)) {
			t.Fatalf("%q: the two paths read different statements", b)
		}
	})
}
