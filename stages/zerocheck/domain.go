package zerocheck

import (
	"math/bits"
	"sync"

	"github.com/leanpipe/leanpipe/field"
)

// KSkip is the number of variables the univariate skip folds at once: the skip
// domain S = PHI[0, 64) and its coset Λ = PHI[64, 128) have 2^KSkip points each.
const KSkip = 6

// NInner is the number of fixed eq coordinates at the front of r: three "small" ones
// in the GF(2^8) image and four "medium" ones.
const NInner = 7

// MinVars is the smallest m the zerocheck runs on.
const MinVars = KSkip + NInner

const (
	skipSize  = 1 << KSkip // |S| = |Λ| = 64
	nSmall    = 3
	nMedium   = 4
	groupLog  = nSmall + nMedium // words per round-1 group: 2^7
	groupSize = 1 << groupLog
)

// mediumGenerator is β: the medium coordinates are β^(2^p)/(1 + β^(2^p)), so the eq
// kernel of the four of them is proportional to β^x.
var mediumGenerator = field.E{C0: 0x243F6A8885A308D3, C1: 0x13198A2E03707344, C2: 0xA4093822299F31D0}

// smallBytes are the GF(2^8) bytes of the three small fixed coordinates.
var smallBytes = [nSmall]byte{0xF7, 0x53, 0xB5}

var fixedChallenges = func() [NInner]field.E {
	var r [NInner]field.E
	for i, b := range smallBytes {
		r[i] = field.FromK(field.Phi8(b))
	}
	g := mediumGenerator
	for p := 0; p < nMedium; p++ {
		r[nSmall+p] = g.Mul(field.One.Add(g).Inv())
		g = g.Square()
	}
	return r
}()

// FixedChallenges returns the NInner fixed leading coordinates of the eq point r.
func FixedChallenges() []field.E {
	out := make([]field.E, NInner)
	copy(out, fixedChallenges[:])
	return out
}

// skipDomain holds the constants of the 128-point skip domain PHI[0, 128).
type skipDomain struct {
	// extPlanes[i][v] are the 8 bit planes (bit j of plane p = bit p of the byte)
	// of the 64 coset values Σ_{s in byte i, bit s of v} L_s(Λ_j), L_s the Lagrange
	// basis over S. First in the struct, so that each entry sits in one cache line.
	extPlanes [8][256][8]uint64

	// mediumPad is medium with rows padded to 32 bytes, for the vector kernel.
	mediumPad [1 << nMedium][256][4]uint64

	nodes [2 * skipSize]field.E
	// invDen128[i] = 1/Π_{k≠i}(n_i + n_k) over the 128 nodes; invDen64 over the first 64.
	invDen128 [2 * skipSize]field.E
	invDen64  [skipSize]field.E

	// phiInv maps a K element of the GF(2^8) image back to its byte.
	phiInv map[field.K]byte
	// red[k] is the byte of t^(8+k): the reduction of the GF(2^8) product planes.
	red [7]byte

	// eq_small(i) = smallScale·smallNorm[i] in GF(2^8); the scale is the divisor
	// that makes the normalized weights cheapest to multiply by (fewest set bits).
	smallNorm  [1 << nSmall]byte
	smallScale byte
	// normPowers reports smallNorm[i] = t^i, the shape the AVX2 group kernel needs.
	normPowers bool

	// medium[k][v] = eq_medium(k)·PHI(v).
	medium [1 << nMedium][256]field.E
}

var (
	domainOnce sync.Once
	domainVal  *skipDomain
)

func domain() *skipDomain {
	domainOnce.Do(func() { domainVal = newSkipDomain() })
	return domainVal
}

func newSkipDomain() *skipDomain {
	d := &skipDomain{phiInv: make(map[field.K]byte, 256)}
	for i := range d.nodes {
		d.nodes[i] = field.FromK(field.Phi8(byte(i)))
	}
	for v := 0; v < 256; v++ {
		d.phiInv[field.Phi8(byte(v))] = byte(v)
	}
	den := func(nodes []field.E, dst []field.E) {
		raw := make([]field.E, len(nodes))
		for i := range nodes {
			p := field.One
			for k := range nodes {
				if k != i {
					p = p.Mul(nodes[i].Add(nodes[k]))
				}
			}
			raw[i] = p
		}
		field.BatchInvert(dst, raw)
	}
	den(d.nodes[:], d.invDen128[:])
	den(d.nodes[:skipSize], d.invDen64[:])

	theta := field.Phi8(2)
	pw := field.Phi8(1)
	for k := 0; k < 15; k++ {
		if k >= 8 {
			d.red[k-8] = d.byteOf(pw)
		}
		pw = pw.Mul(theta)
	}

	if d.red[0] != 0x1B {
		panic("zerocheck: PHI is not GF(2^8) modulo t^8 + t^4 + t^3 + t + 1")
	}

	// Coset extension: L_s(Λ_j) is in the GF(2^8) image.
	var ext [skipSize][skipSize]byte // ext[j][s]
	for j := 0; j < skipSize; j++ {
		w := make([]field.E, skipSize)
		d.lagrange64(w, d.nodes[skipSize+j])
		for s := range w {
			if w[s].C1 != 0 || w[s].C2 != 0 {
				panic("zerocheck: coset Lagrange weight outside K")
			}
			ext[j][s] = d.byteOf(w[s].C0)
		}
	}
	for i := 0; i < 8; i++ {
		for v := 1; v < 256; v++ {
			low := v & -v
			bit := bitIndex(uint(low))
			prev := d.extPlanes[i][v^low]
			s := 8*i + bit
			for j := 0; j < skipSize; j++ {
				e := ext[j][s]
				for p := 0; p < 8; p++ {
					if e>>p&1 != 0 {
						prev[p] ^= 1 << j
					}
				}
			}
			d.extPlanes[i][v] = prev
		}
	}

	// Small eq: the three small coordinates are PHI images, so eq_small(i) is a byte.
	var small [1 << nSmall]field.K
	for i := range small {
		e := field.K(1)
		for t := 0; t < nSmall; t++ {
			r := field.Phi8(smallBytes[t])
			if i>>t&1 != 0 {
				e = e.Mul(r)
			} else {
				e = e.Mul(1 ^ r)
			}
		}
		small[i] = e
	}
	best := -1
	for _, scale := range small {
		inv := scale.Inv()
		cost := 0
		var norm [1 << nSmall]byte
		for i := range small {
			norm[i] = d.byteOf(small[i].Mul(inv))
			cost += bits.OnesCount8(norm[i])
		}
		if best < 0 || cost < best {
			best, d.smallNorm, d.smallScale = cost, norm, d.byteOf(scale)
		}
	}

	d.normPowers = true
	for i, e := range d.smallNorm {
		d.normPowers = d.normPowers && e == 1<<i
	}

	// Medium eq tables.
	eqMed := make([]field.E, 1<<nMedium)
	field.EqTable(eqMed, fixedChallenges[nSmall:])
	for k := range eqMed {
		for v := 1; v < 256; v++ {
			low := v & -v
			d.medium[k][v] = d.medium[k][v^low].Add(eqMed[k].MulK(field.Phi8(byte(low))))
			e := d.medium[k][v]
			d.mediumPad[k][v] = [4]uint64{uint64(e.C0), uint64(e.C1), uint64(e.C2), 0}
		}
	}
	return d
}

func bitIndex(x uint) int {
	n := 0
	for x > 1 {
		x >>= 1
		n++
	}
	return n
}

func (d *skipDomain) byteOf(k field.K) byte {
	b, ok := d.phiInv[k]
	if !ok {
		panic("zerocheck: value outside the GF(2^8) image")
	}
	return b
}

// lagrangeWeights writes the Lagrange basis at z over nodes[:len(dst)] (64 or 128
// nodes), exact also when z is a node.
func (d *skipDomain) lagrangeWeights(dst []field.E, z field.E, invDen []field.E) {
	n := len(dst)
	pre := field.One
	for i := 0; i < n; i++ {
		dst[i] = pre
		pre = pre.Mul(z.Add(d.nodes[i]))
	}
	suf := field.One
	for i := n - 1; i >= 0; i-- {
		dst[i] = dst[i].Mul(suf).Mul(invDen[i])
		suf = suf.Mul(z.Add(d.nodes[i]))
	}
}

// lagrange64 writes the Lagrange basis over S = PHI[0, 64) at z.
func (d *skipDomain) lagrange64(dst []field.E, z field.E) {
	d.lagrangeWeights(dst[:skipSize], z, d.invDen64[:])
}

// interpolateCoset returns the value at z of the polynomial of degree < 128 that is 0
// on S and takes coset[j] at Λ_j = PHI[64+j].
func (d *skipDomain) interpolateCoset(coset []field.E, z field.E) field.E {
	var w [2 * skipSize]field.E
	d.lagrangeWeights(w[:], z, d.invDen128[:])
	acc := field.Zero
	for j, v := range coset {
		acc = acc.Add(w[skipSize+j].Mul(v))
	}
	return acc
}
