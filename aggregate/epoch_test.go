package aggregate

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEpochAndHexWords: a negative, fractional or too large epoch says "epoch must
// be 0..2^32-1" (no Go type name) in a statement and in an input file, uppercase
// hex says "use lowercase hex"; 0 and 2^32-1 are read.
func TestEpochAndHexWords(t *testing.T) {
	msg := strings.Repeat("ab", 32)
	for _, e := range []string{"-1", "4294967296", "1.5", `"7"`} {
		var a Aggregate
		err := json.Unmarshal([]byte(`{"message":"`+msg+`","epoch":`+e+`,"public_keys":[]}`), &a)
		if err == nil || !strings.Contains(err.Error(), "epoch must be 0..2^32-1") || strings.Contains(err.Error(), "uint32") {
			t.Errorf("statement epoch %s: %v", e, err)
		}
		_, err = ParseInput([]byte(`{"message":"` + msg + `","epoch":` + e + `,"signers":[]}`))
		if err == nil || !strings.Contains(err.Error(), "epoch must be 0..2^32-1") || strings.Contains(err.Error(), "uint32") {
			t.Errorf("input epoch %s: %v", e, err)
		}
	}
	for _, e := range []string{"0", "4294967295"} {
		var a Aggregate
		if err := json.Unmarshal([]byte(`{"message":"`+msg+`","epoch":`+e+`,"public_keys":[]}`), &a); err != nil {
			t.Errorf("epoch %s: %v", e, err)
		}
		b, _ := json.Marshal(a)
		if !strings.Contains(string(b), `"epoch":`+e) {
			t.Errorf("epoch %s written as %s", e, b)
		}
	}
	var a Aggregate
	err := json.Unmarshal([]byte(`{"message":"`+strings.ToUpper(msg)+`","epoch":1,"public_keys":[]}`), &a)
	if err == nil || !strings.Contains(err.Error(), "message: use lowercase hex") {
		t.Errorf("uppercase hex: %v", err)
	}
}
