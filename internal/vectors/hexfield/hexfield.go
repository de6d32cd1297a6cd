// Package hexfield decodes the field elements of the known-answer vectors: a K element
// is 16 hex digits of its word, an E element three of them (c0, c1, c2). It is apart
// from package vectors because package field's own tests load vectors and cannot
// import a package that imports field.
package hexfield

import (
	"strconv"
	"testing"

	"github.com/leanpipe/leanpipe/field"
)

// K decodes a K element, failing the test on malformed input.
func K(t testing.TB, s string) field.K {
	t.Helper()
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatalf("hexfield: bad K %q: %v", s, err)
	}
	return field.K(v)
}

// E decodes an E element [c0, c1, c2].
func E(t testing.TB, s [3]string) field.E {
	t.Helper()
	return field.E{C0: K(t, s[0]), C1: K(t, s[1]), C2: K(t, s[2])}
}

// Es decodes a list of E elements.
func Es(t testing.TB, s [][3]string) []field.E {
	t.Helper()
	out := make([]field.E, len(s))
	for i, e := range s {
		out[i] = E(t, e)
	}
	return out
}
