package field

import "github.com/leanpipe/leanpipe/par"

// eqBlockLog is log2 of EqTableOn's blocks.
const eqBlockLog = 10

// EqTableOn is EqTable on the workers, the same field elements: past 2^(eqBlockLog+2)
// entries the low coordinates' kernel is formed once and each block of 2^eqBlockLog
// entries is it scaled by the high kernel's entry (another order of the same exact
// products). The provers' large eq tables (the zerocheck's skip message and first
// rounds, WHIR's out-of-domain weights) left the other core idle when formed on one
// goroutine.
func EqTableOn(dst, point []E, workers par.Workers) {
	if workers.N() <= 1 || len(point) <= eqBlockLog+2 {
		EqTable(dst, point)
		return
	}
	if len(dst) != 1<<len(point) {
		panic("field: EqTableOn needs len(dst) = 2^len(point)")
	}
	low, high := eqKernels(point, One)
	workers.Range(len(high), func(lo, hi int) {
		for h := lo; h < hi; h++ {
			ScaleE(dst[h<<eqBlockLog:(h+1)<<eqBlockLog], low[:], high[h])
		}
	}, par.PerWorker(32))
}

// eqKernels returns the eq tables of point's low eqBlockLog coordinates and, scaled,
// of its high ones (len(point) > eqBlockLog): eq(point, h·2^eqBlockLog + l) =
// low[l]·high[h] (times scale).
func eqKernels(point []E, scale E) (low *[1 << eqBlockLog]E, high []E) {
	low = new([1 << eqBlockLog]E)
	EqTable(low[:], point[:eqBlockLog])
	high = make([]E, 1<<(len(point)-eqBlockLog))
	EqTableScaled(high, point[eqBlockLog:], scale)
	return low, high
}

// AddEqScaledOn adds scale·eq(point, ·) to dst (2^len(point) entries) on the
// workers, in one pass and without forming the table: past 2^eqBlockLog entries
// each block of dst takes the low coordinates' kernel times its entry of the high
// kernel, scaled (the same field elements as EqTableScaled then an addition, by
// the products in another order).
func AddEqScaledOn(dst, point []E, scale E, workers par.Workers) {
	if len(dst) != 1<<len(point) {
		panic("field: AddEqScaledOn needs len(dst) = 2^len(point)")
	}
	if len(point) <= eqBlockLog {
		var t [1 << eqBlockLog]E
		k := t[:len(dst)]
		EqTableScaled(k, point, scale)
		AddSlice(dst, dst, k)
		return
	}
	low, high := eqKernels(point, scale)
	workers.Range(len(high), func(lo, hi int) {
		for h := lo; h < hi; h++ {
			AddScaledE(dst[h<<eqBlockLog:(h+1)<<eqBlockLog], low[:], high[h])
		}
	}, par.PerWorker(32))
}
