package aggregate

import (
	"encoding/binary"
	"encoding/hex"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
)

// FingerprintLabel seeds the fingerprint's evaluation point.
const FingerprintLabel = "leanpipe/xmss-aggregate/circuit-fingerprint/v0"

// fingerprintCoord is coordinate i of the fingerprint's row ("row") or column
// ("col") point: the first 24 bytes of BLAKE2s-256(label ‖ side ‖ LE32(i)) read as
// the E element (C0, C1, C2), each a little-endian 64-bit word.
func fingerprintCoord(side string, i int) field.E {
	msg := binary.LittleEndian.AppendUint32([]byte(FingerprintLabel+side), uint32(i))
	d := blake2s.Sum256(msg)
	return field.E{
		C0: field.K(binary.LittleEndian.Uint64(d[0:])),
		C1: field.K(binary.LittleEndian.Uint64(d[8:])),
		C2: field.K(binary.LittleEndian.Uint64(d[16:])),
	}
}

// Fingerprint identifies the circuit's matrices: the multilinear extensions of A0 and
// B0 at the point (r_row, r_col), whose LogSize coordinates each come from
// fingerprintCoord, i.e. eᵀA0w and eᵀB0w with e = eq(r_row, ·) and w = eq(r_col, ·)
// (index bit j ↔ coordinate j). Another implementation of the circuit with the same
// matrices gets the same two values (and one with other matrices a different pair,
// except with negligible probability). It returns each as 48 hex digits of C0 ‖ C1 ‖
// C2, little-endian.
func (c *Circuit) Fingerprint() (a, b string) { return fingerprintOf(c.Circuit) }

// MatricesFingerprint is Fingerprint computed from Matrices (the description, no
// program built): the same two values for the same circuit.
func MatricesFingerprint() (a, b string) { return fingerprintOf(Matrices()) }

func fingerprintOf(m circuit.Matrices) (a, b string) {
	rr, rc := make([]field.E, LogSize), make([]field.E, LogSize)
	for i := range LogSize {
		rr[i], rc[i] = fingerprintCoord("row", i), fingerprintCoord("col", i)
	}
	va, vb := circuit.Eval(m, rr, rc)
	enc := func(x field.E) string {
		var b []byte
		for _, k := range []field.K{x.C0, x.C1, x.C2} {
			b = binary.LittleEndian.AppendUint64(b, uint64(k))
		}
		return hex.EncodeToString(b)
	}
	return enc(va), enc(vb)
}
