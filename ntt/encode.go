package ntt

import (
	"fmt"
	"unsafe"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// kWords views K elements as their words.
func kWords(v []field.K) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

// eWords views E elements as their words: element i is words 3i, 3i+1, 3i+2 (C0, C1, C2).
func eWords(v []field.E) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), 3*len(v))
}

// EncodeK Reed–Solomon-encodes the level-0 (K-valued) WHIR message into dst, the
// codeword matrix exactly as its Merkle leaves are hashed. The plan's dimension is
// LogD = logRows + logInvRate, where a lane carries 2^logRows message words.
//
// Message: msg is n whole lane blocks, block b = msg[b·2^logRows : (b+1)·2^logRows]
// (1 ≤ n ≤ 2^foldLog; for the committed stack of 2^logN words, logRows = logN − foldLog,
// and a stack shorter than 2^logN words simply has fewer blocks). Lane block b holds the
// novel-basis coefficients of its codeword; the high 2^logD − 2^logRows coefficients are
// zero.
//
// Codeword: dst holds 2^LogD rows of w = len(dst)/2^LogD words (n ≤ w ≤ 2^foldLog); row q
// is dst[q·w : (q+1)·w] and is the evaluation point q (q's bits as a K word). Row q is
// the last w words of the 2^foldLog-word leaf image of q, whose word i is the codeword
// of block 2^foldLog − 1 − i at q, or zero when that block is absent: within a row, the
// blocks run in descending order, the absent ones form a zero prefix (w − n words, here
// written as zeros), and block 0 is the last word. With w = 2^foldLog the row is the whole
// leaf; with w = n it is the leaf's committed tail.
//
// The workers share the work; dst's content never depends on them. EncodeK panics on
// inconsistent sizes.
func (p *Plan) EncodeK(dst []uint64, msg []field.K, foldLog, logInvRate int, workers par.Workers) {
	p.EncodeKThen(dst, msg, foldLog, logInvRate, workers, nil)
}

// RowsDone receives the row ranges of a codeword as they become final during an
// encode: each call names rows [lo, hi), an aligned block of a power of two rows
// (hi − lo = 2^k, lo a multiple of hi − lo); the calls' ranges are disjoint and cover
// every row once. Calls run on the encode's workers, concurrently, each right after the
// worker finished its range, while those rows are still in its cache; they must not
// write the codeword.
type RowsDone func(lo, hi int)

// EncodeKThen is [Plan.EncodeK] calling done (when not nil) with every range of rows
// as soon as it is final, so that a consumer such as a Merkle tree's leaf hashing reads
// them from cache. EncodeKThen returns once every call has returned.
func (p *Plan) EncodeKThen(dst []uint64, msg []field.K, foldLog, logInvRate int, workers par.Workers, done RowsDone) {
	if logInvRate < 0 || logInvRate > p.logD || foldLog < 0 || foldLog > 12 {
		panic(fmt.Sprintf("ntt: EncodeK: log inverse rate %d, fold %d with dimension %d", logInvRate, foldLog, p.logD))
	}
	logRows := p.logD - logInvRate
	rows := 1 << logRows
	n := len(msg) >> logRows
	if n<<logRows != len(msg) || n < 1 || n > 1<<foldLog {
		panic(fmt.Sprintf("ntt: EncodeK: message of %d words is not 1..2^%d blocks of 2^%d", len(msg), foldLog, logRows))
	}
	w := len(dst) >> p.logD
	if w<<p.logD != len(dst) || w < n || w > 1<<foldLog {
		panic(fmt.Sprintf("ntt: EncodeK: codeword of %d words is not 2^%d rows of %d..%d words", len(dst), p.logD, n, 1<<foldLog))
	}
	e := engine{
		p: p, buf: dst, s: w, c0: w - n, n: n, start: logInvRate, w: workers,
		src:   &source{words: dst, stride: w, off: w - n, n: n, rows: rows, inPlace: true},
		lanes: kWords(msg), done: done,
	}
	e.run()
}

// EncodeE Reed–Solomon-encodes a deeper (E-valued) WHIR level's message into dst, the
// codeword matrix exactly as its Merkle leaves are hashed. The plan's dimension is
// LogD = logRows + logInvRate with 2^logRows = len(msg)/2^foldLog.
//
// Message: msg is row-major with 2^foldLog lanes, msg[r·2^foldLog + ℓ] being coefficient
// r of lane ℓ (the lane is the low foldLog bits of the index, the coordinates the level's
// fold binds first).
//
// Codeword: dst holds 2^LogD rows of 3·2^foldLog words; row q = dst[q·3·2^foldLog ..] is
// the evaluation point q and lists the lanes in ascending order, lane ℓ's E value as
// words 3ℓ, 3ℓ+1, 3ℓ+2 = (C0, C1, C2).
//
// The workers share the work; dst's content never depends on them. EncodeE panics on
// inconsistent sizes.
func (p *Plan) EncodeE(dst []uint64, msg []field.E, foldLog, logInvRate int, workers par.Workers) {
	if logInvRate < 0 || logInvRate > p.logD || foldLog < 0 || foldLog > 12 {
		panic(fmt.Sprintf("ntt: EncodeE: log inverse rate %d, fold %d with dimension %d", logInvRate, foldLog, p.logD))
	}
	logRows := p.logD - logInvRate
	lanes := 1 << foldLog
	if len(msg) != lanes<<logRows {
		panic(fmt.Sprintf("ntt: EncodeE: message of %d values is not 2^%d rows of %d lanes", len(msg), logRows, lanes))
	}
	s := 3 * lanes
	if len(dst) != s<<p.logD {
		panic(fmt.Sprintf("ntt: EncodeE: codeword of %d words, want %d", len(dst), s<<p.logD))
	}
	e := engine{
		p: p, buf: dst, s: s, n: s, start: logInvRate, w: workers,
		src: &source{words: eWords(msg), stride: s, n: s, rows: 1 << logRows},
	}
	e.run()
}

// EncodeK is [Plan.EncodeK] with the plan of dimension logN − foldLog + logInvRate built
// for the call: the level-0 encode of a stack of 2^logN words (or its leading whole lane
// blocks).
func EncodeK(dst []uint64, msg []field.K, logN, foldLog, logInvRate int, workers par.Workers) {
	NewPlan(logN-foldLog+logInvRate).EncodeK(dst, msg, foldLog, logInvRate, workers)
}

// EncodeE is [Plan.EncodeE] with the plan built for the call.
func EncodeE(dst []uint64, msg []field.E, foldLog, logInvRate int, workers par.Workers) {
	logN := log2Exact(len(msg))
	NewPlan(logN-foldLog+logInvRate).EncodeE(dst, msg, foldLog, logInvRate, workers)
}

func log2Exact(n int) int {
	for l := 0; l < 63; l++ {
		if 1<<l == n {
			return l
		}
	}
	panic(fmt.Sprintf("ntt: length %d is not a power of two", n))
}
