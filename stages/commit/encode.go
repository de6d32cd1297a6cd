package commit

import (
	"sync"

	"github.com/leanpipe/leanpipe/field"
)

// EncodeK Reed–Solomon encodes msg (2^m K words, split into 2^laneLog lane blocks
// of 2^(m-laneLog) consecutive words) at log inverse rate logInvRate into dst, row
// by row: dst[q·2^laneLog + t] is lane 2^laneLog-1-t evaluated at point q.
//
// This is a plain per-lane transform (twiddles computed here), kept until the ntt
// package's interleaved encoders land.
func EncodeK(dst []uint64, msg []field.K, laneLog, logInvRate, workers int) {
	lanes := 1 << laneLog
	cols := len(msg) / lanes
	logD := log2(cols) + logInvRate
	n := 1 << logD
	if len(dst) != n*lanes {
		panic("commit: EncodeK destination size")
	}
	plan := newPlan(logD)
	parallelRange(lanes, workers, func(a, b int) {
		buf := make([]uint64, n)
		for lane := a; lane < b; lane++ {
			src := msg[lane*cols : (lane+1)*cols]
			for r := 0; r < 1<<logInvRate; r++ {
				for i, v := range src {
					buf[r*cols+i] = uint64(v)
				}
			}
			forward(plan, buf, logInvRate)
			t := lanes - 1 - lane
			for q, v := range buf {
				dst[q*lanes+t] = v
			}
		}
	})
}

// EncodeE encodes an E message whose lanes are its low laneLog index bits
// (msg[col·2^laneLog + lane]) into rows of 3·2^laneLog words: lane l of row q is
// words 3l, 3l+1, 3l+2 (c0, c1, c2) of the lane's codeword at point q.
func EncodeE(dst []uint64, msg []field.E, laneLog, logInvRate, workers int) {
	lanes := 1 << laneLog
	cols := len(msg) / lanes
	logD := log2(cols) + logInvRate
	n := 1 << logD
	if len(dst) != 3*n*lanes {
		panic("commit: EncodeE destination size")
	}
	plan := newPlan(logD)
	parallelRange(3*lanes, workers, func(a, b int) {
		buf := make([]uint64, n)
		for job := a; job < b; job++ {
			lane, c := job/3, job%3
			for r := 0; r < 1<<logInvRate; r++ {
				for i := 0; i < cols; i++ {
					e := msg[i*lanes+lane]
					buf[r*cols+i] = uint64([3]field.K{e.C0, e.C1, e.C2}[c])
				}
			}
			forward(plan, buf, logInvRate)
			for q, v := range buf {
				dst[(q*lanes+lane)*3+c] = v
			}
		}
	})
}

// plan holds the twiddles of a novel-basis transform of dimension d: layer ℓ,
// block i uses λ = Ŵ_{d-ℓ-1}(i·2^(d-ℓ)), the normalised subspace polynomial (an
// F2-linear map) at the block's offset.
type plan struct {
	d  int
	tw [][]field.K
}

func newPlan(d int) *plan {
	roots := subspaceRoots(d)
	p := &plan{d: d, tw: make([][]field.K, d)}
	for layer := 0; layer < d; layer++ {
		k := d - layer - 1
		inv := field.K(1)
		if roots[k] != 0 {
			inv = roots[k].Inv()
		}
		t := make([]field.K, 1<<layer)
		for block := range t {
			w := field.K(uint64(block) << (d - layer))
			for j := 0; j < k; j++ {
				w = w.Square().Add(roots[j].Mul(w))
			}
			t[block] = w.Mul(inv)
		}
		p.tw[layer] = t
	}
	return p
}

// subspaceRoots returns r_k = W_k(2^k) for k ≤ n (W_0 = X, W_{k+1} = W_k² + r_k W_k).
func subspaceRoots(n int) []field.K {
	roots := make([]field.K, n+1)
	for k := 0; k <= n; k++ {
		w := field.K(1) << k
		for j := 0; j < k; j++ {
			w = w.Square().Add(roots[j].Mul(w))
		}
		roots[k] = w
	}
	return roots
}

// forward runs layers from..d-1 of the novel-basis transform in place.
func forward(plan *plan, a []uint64, from int) {
	d := plan.d
	for layer := from; layer < d; layer++ {
		h := 1 << (d - layer - 1)
		for block := 0; block < 1<<layer; block++ {
			lambda := plan.tw[layer][block]
			u := a[block*2*h : block*2*h+h]
			v := a[block*2*h+h : block*2*h+2*h]
			for i := range u {
				u[i] ^= uint64(field.K(v[i]).Mul(lambda))
				v[i] ^= u[i]
			}
		}
	}
}

func log2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}

// parallelRange runs fn over [0, n) split into at most workers contiguous ranges.
func parallelRange(n, workers int, fn func(a, b int)) {
	if workers <= 1 || n < 2 {
		fn(0, n)
		return
	}
	workers = min(workers, n)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		a, b := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() { defer wg.Done(); fn(a, b) }()
	}
	wg.Wait()
}
