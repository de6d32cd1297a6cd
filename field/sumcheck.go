package field

import "github.com/leanpipe/leanpipe/simd"

// Round polynomials of a product sumcheck. For multilinear tables f and b, binding one
// variable X gives q(X) = Σ_i (f_lo,i + X·(f_lo,i + f_hi,i))·(b_lo,i + X·(b_lo,i + b_hi,i)),
// a quadratic fixed by q(0) = Σ f_lo·b_lo, q(1) = Σ f_hi·b_hi and its leading
// coefficient Σ (f_lo + f_hi)·(b_lo + b_hi). The Low functions bind the lowest variable
// (lo, hi = entries 2i, 2i+1), the High functions the highest (lo, hi = entries i, i+h).

// SumcheckRoundLow returns q(0), q(1) and the leading coefficient for the lowest
// variable. It panics unless len(f) = len(b) is even.
func SumcheckRoundLow(f, b []E) (q0, q1, qInf E) {
	if len(f) != len(b) || len(f)%2 != 0 {
		panic("field: SumcheckRoundLow needs tables of equal, even length")
	}
	w0, w1, wi := simd.DotPairsEE(eWords(f), eWords(b))
	return fromWords(w0), fromWords(w1), fromWords(wi)
}

// sumcheckChunk bounds the stack buffers holding the pair sums of the High functions.
const sumcheckChunk = 128

// SumcheckRoundHigh returns q(0), q(1) and the leading coefficient for the highest
// variable. It panics unless len(f) = len(b) is even.
func SumcheckRoundHigh(f, b []E) (q0, q1, qInf E) {
	if len(f) != len(b) || len(f)%2 != 0 {
		panic("field: SumcheckRoundHigh needs tables of equal, even length")
	}
	h := len(f) / 2
	q0 = InnerProduct(f[:h], b[:h])
	q1 = InnerProduct(f[h:], b[h:])
	var sf, sb [sumcheckChunk]E
	for i := 0; i < h; i += sumcheckChunk {
		c := min(sumcheckChunk, h-i)
		AddSlice(sf[:c], f[i:i+c], f[h+i:h+i+c])
		AddSlice(sb[:c], b[i:i+c], b[h+i:h+i+c])
		qInf = qInf.Add(InnerProduct(sf[:c], sb[:c]))
	}
	return q0, q1, qInf
}

// SumcheckRoundHighKE is SumcheckRoundHigh for a K table f.
func SumcheckRoundHighKE(f []K, b []E) (q0, q1, qInf E) {
	if len(f) != len(b) || len(f)%2 != 0 {
		panic("field: SumcheckRoundHighKE needs tables of equal, even length")
	}
	h := len(f) / 2
	q0 = InnerProductKE(f[:h], b[:h])
	q1 = InnerProductKE(f[h:], b[h:])
	var sf [sumcheckChunk]K
	var sb [sumcheckChunk]E
	for i := 0; i < h; i += sumcheckChunk {
		c := min(sumcheckChunk, h-i)
		for j := range c {
			sf[j] = f[i+j] ^ f[h+i+j]
		}
		AddSlice(sb[:c], b[i:i+c], b[h+i:h+i+c])
		qInf = qInf.Add(InnerProductKE(sf[:c], sb[:c]))
	}
	return q0, q1, qInf
}

func fromWords(w [3]uint64) E { return E{K(w[0]), K(w[1]), K(w[2])} }
