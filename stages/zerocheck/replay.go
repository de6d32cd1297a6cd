package zerocheck

import "github.com/leanpipe/leanpipe/field"

// What a recursive verifier needs to replay this stage on symbolic values (the
// recursion package's stream checks): the stage's linear maps, exported.

// EqPoint returns the zerocheck's eq point over m variables, its first NInner
// coordinates the fixed constants and the rest drawn from sample, as VerifyWith
// draws them.
func EqPoint(sample func() field.E, m int) []field.E { return eqPoint(sample, m) }

// CosetWeights writes into dst (64 entries) the weights w_j with which VerifyWith
// interpolates the 64 coset values at z: running = Σ_j w_j·coset_j.
func CosetWeights(dst []field.E, z field.E) {
	var w [2 * skipSize]field.E
	domain().lagrangeWeights(w[:], z, domain().invDen128[:])
	copy(dst, w[skipSize:])
}
