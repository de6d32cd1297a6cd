package zerocheck

import (
	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// words is a packed bit vector with a periodic tail: word i is head[i] below
// len(head) and pad[i mod len(pad)] from there on (len(head) a multiple of len(pad)).
// A nil pad means the head is the whole vector.
type words struct{ head, pad []field.K }

// vec is an E table with a periodic tail, as words.
type vec struct{ head, pad []field.E }

func (v *vec) at(i int) field.E {
	if i < len(v.head) {
		return v.head[i]
	}
	return v.pad[i&(len(v.pad)-1)]
}

// tailMass returns Σ_{j ≥ start} eq(r, j) over j < 2^len(r): 1 plus the mass of the
// prefix [0, start), which is a sum of one dyadic block per set bit of start.
func tailMass(r []field.E, start int) field.E {
	if start >= 1<<len(r) {
		return field.Zero
	}
	acc := field.Zero
	pre := field.One
	for t := len(r) - 1; t >= 0; t-- {
		if start>>t&1 != 0 {
			acc = acc.Add(pre.Mul(field.One.Add(r[t])))
			pre = pre.Mul(r[t])
		} else {
			pre = pre.Mul(field.One.Add(r[t]))
		}
	}
	return field.One.Add(acc)
}

func log2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	if 1<<l != n {
		panic("zerocheck: not a power of two")
	}
	return l
}

// splitLog is the number of low coordinates of a split eq table.
const splitLog = 7

// pairSum computes Σ_j eq(rr, j)·f(j) for a pair function f with a periodic tail:
// pairs j < nHead come from row(head=true, …), pairs from nHead on repeat the padPairs
// pad pairs (nHead a multiple of padPairs; padPairs = 0 when there is no tail).
// row(head, base, n, eq) returns Σ_{l<n} eq[l]·f(base + l) for the two message
// components.
func pairSum(rr []field.E, nHead, padPairs int, workers par.Workers, row func(head bool, base, n int, eq []field.E, s *scratch) [2]field.E) [2]field.E {
	nlo := min(splitLog, len(rr))
	lo := make([]field.E, 1<<nlo)
	field.EqTable(lo, rr[:nlo])
	hi := takeTable(1 << (len(rr) - nlo))
	defer putTable(hi)
	field.EqTableOn(hi, rr[nlo:], workers)
	rows := (nHead + len(lo) - 1) / len(lo)
	parts := make([][2]field.E, workers.N())
	scr := make([]*scratch, workers.N())
	workers.For(rows, func(w, r0, r1 int) {
		if scr[w] == nil {
			scr[w] = newScratch(len(lo))
		}
		sc := scr[w]
		acc := parts[w]
		for h := r0; h < r1; h++ {
			base := h * len(lo)
			n := min(len(lo), nHead-base)
			s := row(true, base, n, lo[:n], sc)
			acc[0] = acc[0].Add(hi[h].Mul(s[0]))
			acc[1] = acc[1].Add(hi[h].Mul(s[1]))
		}
		parts[w] = acc
	}, par.MinChunk(2), par.PerWorker(32)) // fine chunks: the workers finish together
	var out [2]field.E
	for _, p := range parts {
		out[0] = out[0].Add(p[0])
		out[1] = out[1].Add(p[1])
	}
	if padPairs == 0 {
		return out
	}
	lp := log2(padPairs)
	eqIn := takeTable(padPairs)
	defer putTable(eqIn)
	field.EqTableOn(eqIn, rr[:lp], workers)
	// The pad's pairs are cut in rows as the head's are, so the workers share
	// them too (the sum is the same).
	var s [2]field.E
	if workers.N() <= 1 || padPairs <= len(lo) {
		s = row(false, 0, padPairs, eqIn, newScratch(padPairs))
	} else {
		clear(parts)
		workers.For((padPairs+len(lo)-1)/len(lo), func(w, r0, r1 int) {
			if scr[w] == nil {
				scr[w] = newScratch(len(lo))
			}
			acc := parts[w]
			for h := r0; h < r1; h++ {
				base := h * len(lo)
				n := min(len(lo), padPairs-base)
				v := row(false, base, n, eqIn[base:base+n], scr[w])
				acc[0], acc[1] = acc[0].Add(v[0]), acc[1].Add(v[1])
			}
			parts[w] = acc
		}, par.MinChunk(2), par.PerWorker(32))
		for _, p := range parts {
			s[0], s[1] = s[0].Add(p[0]), s[1].Add(p[1])
		}
	}
	mass := tailMass(rr[lp:], nHead/padPairs)
	out[0] = out[0].Add(mass.Mul(s[0]))
	out[1] = out[1].Add(mass.Mul(s[1]))
	return out
}

// tables keeps the eq tables of skipMessage and pairSum between calls: allocated
// afresh, they were faulted in afresh on every proof once the collector had
// returned the heap's free pages to the kernel, at 14.5 µs a 4 KiB page on the VMs
// we measure on (docs/recursion.md §6.25).
var tables buffers.Shelf[[]field.E]

// takeTable returns a table of n entries off the shelf (contents unspecified: the
// eq-table writers set every entry); putTable puts it back.
func takeTable(n int) []field.E {
	t := tables.Get()
	*t = buffers.Grow(*t, n)
	return *t
}

func putTable(t []field.E) { tables.Put(&t) }

// scratch holds one row of de-interleaved pair values for the vector kernels:
// x1 = f(2j+1) and xs = f(2j) + f(2j+1) for a and b, c1 = c(2j+1), and products.
type scratch struct {
	a1, as, b1, bs, c1, p []field.E
}

func newScratch(n int) *scratch {
	buf := make([]field.E, 6*n)
	return &scratch{a1: buf[:n], as: buf[n : 2*n], b1: buf[2*n : 3*n], bs: buf[3*n : 4*n], c1: buf[4*n : 5*n], p: buf[5*n:]}
}

// message returns (Σ eq·(a1·b1 + c1), Σ eq·as·bs) over the first n entries.
func (s *scratch) message(n int, eq []field.E) [2]field.E {
	return s.messageOf(eq[:n], s.a1[:n], s.as[:n], s.b1[:n], s.bs[:n], s.c1[:n])
}

// messageOf is message on given vectors of len(eq) entries (s.p is the workspace).
func (s *scratch) messageOf(eq, a1, as, b1, bs, c1 []field.E) [2]field.E {
	p := s.p[:len(eq)]
	field.MulESlice(p, a1, b1)
	addE(p, p, c1)
	g1 := field.InnerProduct(eq, p)
	field.MulESlice(p, as, bs)
	return [2]field.E{g1, field.InnerProduct(eq, p)}
}

// addE writes dst[i] = a[i] + b[i] (a plain loop the compiler keeps free of bounds
// checks; about twice field.AddSlice on the short rows here).
func addE(dst, a, b []field.E) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		x, y := &a[i], &b[i]
		dst[i] = field.E{C0: x.C0 ^ y.C0, C1: x.C1 ^ y.C1, C2: x.C2 ^ y.C2}
	}
}
