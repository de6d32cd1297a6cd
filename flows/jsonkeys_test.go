package flows

import (
	"strings"
	"testing"
)

// TestParseMetaAmbiguous: PROOF.json with a field given twice, or in two letter
// cases, at the top or inside the statement, is refused naming the fields; the
// same document without the repeat is read.
func TestParseMetaAmbiguous(t *testing.T) {
	good := `{"flow":"blake2s-batch","n":8,"log_inv_rate":1,"label":"flock-blake2s-batch","format":"wire"}`
	if _, err := ParseMeta([]byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ doc, want string }{
		{`{"flow":"blake2s-batch","n":8,"n":16,"log_inv_rate":1,"label":"flock-blake2s-batch","format":"wire"}`, `field "n" is given twice`},
		{`{"flow":"blake2s-batch","n":8,"N":16,"log_inv_rate":1,"label":"flock-blake2s-batch","format":"wire"}`, `fields "n" and "N" differ only in case`},
		{`{"flow":"blake2s-batch","n":8,"log_inv_rate":1,"label":"flock-blake2s-batch","format":"wire","Format":"raw"}`, `fields "format" and "Format"`},
		{`{"a":{"b":1,"b":2}}`, `field "a.b" is given twice`},
		{`{"a":[{"k":1,"K":2}]}`, `fields "k" and "K"`},
	} {
		_, err := ParseMeta([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
	}
	if err := CheckJSONKeys([]byte(`{"a":1} {}`)); err == nil {
		t.Error("trailing data accepted")
	}
}
