package circuit

import (
	"encoding/binary"
	"encoding/hex"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/field"
)

// Fingerprint identifies a circuit's matrices under a label: the multilinear
// extensions of A0 and B0 at the point (r_row, r_col), coordinate i of each being the
// first 24 bytes of BLAKE2s-256(label ‖ "row" or "col" ‖ LE32(i)) read as the E element
// (C0, C1, C2) of little-endian 64-bit words; that is eᵀA0w and eᵀB0w with
// e = eq(r_row, ·), w = eq(r_col, ·), index bit j ↔ coordinate j. Another implementation
// with the same matrices gets the same two values (one with other matrices a different
// pair, except with negligible probability). Each is returned as 48 hex digits of
// C0 ‖ C1 ‖ C2, little-endian.
func Fingerprint(m Matrices, label string) (a, b string) {
	n := m.LogSize()
	rr, rc := make([]field.E, n), make([]field.E, n)
	for i := range n {
		rr[i], rc[i] = fingerprintCoord(label, "row", i), fingerprintCoord(label, "col", i)
	}
	va, vb := Eval(m, rr, rc)
	enc := func(x field.E) string {
		var out []byte
		for _, k := range []field.K{x.C0, x.C1, x.C2} {
			out = binary.LittleEndian.AppendUint64(out, uint64(k))
		}
		return hex.EncodeToString(out)
	}
	return enc(va), enc(vb)
}

func fingerprintCoord(label, side string, i int) field.E {
	d := blake2s.Sum256(binary.LittleEndian.AppendUint32([]byte(label+side), uint32(i)))
	return field.E{
		C0: field.K(binary.LittleEndian.Uint64(d[0:])),
		C1: field.K(binary.LittleEndian.Uint64(d[8:])),
		C2: field.K(binary.LittleEndian.Uint64(d[16:])),
	}
}
