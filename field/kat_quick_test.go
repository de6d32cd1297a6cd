package field

import (
	"strconv"
	"testing"

	"github.com/leanpipe/leanpipe/internal/vectors"
)

func parseK(t testing.TB, s string) K {
	t.Helper()
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return K(v)
}

func parseE(t testing.TB, s [3]string) E { return E{parseK(t, s[0]), parseK(t, s[1]), parseK(t, s[2])} }

func TestKATKMul(t *testing.T) {
	var rows [][3]string
	vectors.KAT(t, "k_mul", &rows)
	for i, r := range rows {
		if got := parseK(t, r[0]).Mul(parseK(t, r[1])); got != parseK(t, r[2]) {
			t.Fatalf("row %d: got %016x", i, got)
		}
	}
}

func TestKATEMulInv(t *testing.T) {
	var rows [][3][3]string
	vectors.KAT(t, "e_mul", &rows)
	for i, r := range rows {
		if got := parseE(t, r[0]).Mul(parseE(t, r[1])); got != parseE(t, r[2]) {
			t.Fatalf("row %d: got %v", i, got)
		}
	}
	var inv [][2][3]string
	vectors.KAT(t, "e_inv", &inv)
	for i, r := range inv {
		if got := parseE(t, r[0]).Inv(); got != parseE(t, r[1]) {
			t.Fatalf("inv row %d: got %v", i, got)
		}
	}
}
