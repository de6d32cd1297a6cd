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
	var low [1 << eqBlockLog]E
	EqTable(low[:], point[:eqBlockLog])
	high := make([]E, 1<<(len(point)-eqBlockLog))
	EqTable(high, point[eqBlockLog:])
	workers.Range(len(high), func(lo, hi int) {
		for h := lo; h < hi; h++ {
			ScaleE(dst[h<<eqBlockLog:(h+1)<<eqBlockLog], low[:], high[h])
		}
	}, par.PerWorker(32))
}
