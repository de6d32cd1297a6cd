package field

// phiBasis holds the K images of the GF(2^8) polynomial basis 1, t, …, t^7 under the
// skip-domain embedding PHI of leanVM-b. The images span a GF(2)-subspace of K that is
// closed under the GF(2^8) product, so PHI is a field embedding GF(2^8) → K.
var phiBasis = [8]K{
	0x0000000000000001, 0x033CE8BEDDC8A656, 0x512620375ED2A108, 0x0C9E636090AAFC01,
	0xBA4F3CD82801769C, 0xBA26E7904ADB4A47, 0x467698598926DC01, 0x4418AE808B28BDD0,
}

// phiTable[b] = Phi8(b).
var phiTable = func() (t [256]K) {
	for b := 1; b < 256; b++ {
		low := b & -b
		bit := 0
		for low>>bit != 1 {
			bit++
		}
		t[b] = t[b^low] ^ phiBasis[bit]
	}
	return t
}()

// Phi8 returns PHI(b): the image in K of the GF(2^8) element b (bit i the coefficient of
// t^i). The univariate-skip domain is PHI(0), PHI(1), …, in byte order.
func Phi8(b byte) K { return phiTable[b] }
