package aggregate

import (
	"fmt"
	"slices"
)

// The routing of chain ends into the leaf: a Beneš network on RouteLanes lanes, pruned
// to the outputs that are read. Input lane j < Slots is slot j's output (value and
// label), input lane Slots+f is free lane f (a free 128-bit value with the constant
// label (63, 0, 0), which no chain check accepts). Output lane i < xmss.V is chain
// i's end. The network is the usual recursive one: on n lanes, a first column of n/2
// switches (switch k takes lanes 2k and 2k+1 and sends one to each half), Beneš
// networks on the upper and lower halves, and a last column of n/2 switches (switch k
// takes the halves' output k and gives lanes 2k and 2k+1). A switch with control s
// passes (x, y) as (x ⊕ d, y ⊕ d) with d = s·(x ⊕ y): s = 1 crosses. A last-column
// switch none of whose outputs is read is left out, which prunes the halves' unread
// outputs in turn; first-column switches are all kept. The control bits are free
// inputs, in the order the recursion visits the switches: first column, upper half,
// lower half, last column.

const (
	// RouteLanes is the network's width: the 99 slots and FreeLanes free lanes.
	RouteLanes = 128
	// FreeLanes carry the tips of chains with x_i = 7 (at most 42 − ⌈99/7⌉ = 27).
	FreeLanes = RouteLanes - Slots
	// RouteOutputs are the outputs read: one per chain.
	RouteOutputs = 42
	// freeChain is the chain label of a free lane (chains are 0..41).
	freeChain = 63
)

// benesSwitches counts the switches of the pruned network on n lanes whose outputs
// [0, need) are read.
func benesSwitches(n, need int) int {
	if need <= 0 {
		return 0
	}
	if n == 2 {
		return 1
	}
	half := (need + 1) / 2 // last-column switches kept
	return n/2 + 2*benesSwitches(n/2, half) + half
}

// RouteControls is the number of control bits (switches kept).
var RouteControls = benesSwitches(RouteLanes, RouteOutputs)

// benesCircuit builds the pruned network over lanes (each a bit vector, all of one
// width) with control bits from the columns ctl, ctl+1, …; it returns the outputs
// (nil where pruned) and the next control column.
func (g *gen[W, B]) benesCircuit(lanes [][]W, need, ctl int) ([][]W, int) {
	n := len(lanes)
	out := make([][]W, n)
	if need <= 0 {
		return out, ctl
	}
	sw := func(s W, x, y []W) (a, b []W) {
		a, b = make([]W, len(x)), make([]W, len(x))
		for t := range x {
			var d, zero W
			if diff := g.b.Xor(x[t], y[t]); diff != zero { // equal constants pass unswitched
				d = g.product(s, diff)
			}
			a[t], b[t] = g.b.Xor(x[t], d), g.b.Xor(y[t], d)
		}
		return a, b
	}
	if n == 2 {
		out[0], out[1] = sw(g.b.Col(ctl), lanes[0], lanes[1])
		return out, ctl + 1
	}
	up, lo := make([][]W, n/2), make([][]W, n/2)
	for k := range n / 2 {
		up[k], lo[k] = sw(g.b.Col(ctl), lanes[2*k], lanes[2*k+1])
		ctl++
	}
	half := (need + 1) / 2
	uo, ctl := g.benesCircuit(up, half, ctl)
	lo2, ctl := g.benesCircuit(lo, half, ctl)
	for k := range half {
		out[2*k], out[2*k+1] = sw(g.b.Col(ctl), uo[k], lo2[k])
		ctl++
	}
	return out, ctl
}

// benesRoute returns the control bits (in the circuit's order) that route input
// src[o] to output o for every o, src a permutation of [0, n), pruned as
// benesCircuit prunes for outputs [0, need).
func benesRoute(src []int, need int) []bool {
	var r router
	return slices.Clone(r.route(src, need))
}

// router computes Beneš control bits in memory it keeps: the witness routes every
// lane of every group, and fresh tables per call (about a hundred small slices per
// signature) cost the witness stage a page fault per 4 KiB of them once the collector
// has returned the heap's free pages. A router is used by one goroutine at a time.
type router struct {
	ints []int  // inverse, half and sub-permutation tables of every recursion level
	ctl  []bool // the control bits of the last route
}

// route returns benesRoute(src, need) in r's memory, valid until the next call.
func (r *router) route(src []int, need int) []bool {
	// Level n takes 3n ints and its halves share the rest: < 6n in all.
	r.ints = slices.Grow(r.ints[:0], 6*len(src))[:6*len(src)]
	r.ctl = r.ctl[:0]
	r.rec(src, need, r.ints)
	return r.ctl
}

func (r *router) rec(src []int, need int, arena []int) {
	n := len(src)
	if need <= 0 {
		return
	}
	if n == 2 {
		r.ctl = append(r.ctl, src[0] == 1)
		return
	}
	inv, viaUpper := arena[:n], arena[n:2*n]
	upSrc, loSrc := arena[2*n:2*n+n/2], arena[2*n+n/2:3*n]
	for o, i := range src {
		inv[i] = o
	}
	// viaUpper[o]: output o is fed through the upper half. The loop: an output pair
	// takes one value from each half, and so does an input pair.
	const unset = -1
	for o := range viaUpper {
		viaUpper[o] = unset
	}
	for start := 0; start < n; start += 2 {
		if viaUpper[start] != unset {
			continue
		}
		viaUpper[start], viaUpper[start+1] = 1, 0
		for o := start; ; {
			// o is fed through the upper half, so the partner of its input goes down:
			// the output p it feeds comes from the lower half, p's partner from the upper.
			p := inv[src[o]^1]
			if viaUpper[p] != unset {
				if viaUpper[p] != 0 {
					panic("aggregate: Beneš routing loop is inconsistent")
				}
				break // the cycle closed
			}
			viaUpper[p], viaUpper[p^1] = 0, 1
			o = p ^ 1
		}
	}
	base := len(r.ctl)
	r.ctl = slices.Grow(r.ctl, n/2)[:base+n/2]
	first := r.ctl[base:]
	clear(first) // reused memory: the loop sets only the crossed switches
	for o, up := range viaUpper {
		i := src[o]
		if up == 1 {
			first[i/2] = i%2 == 1 // the odd input goes up: crossed
			upSrc[o/2] = i / 2
		} else {
			loSrc[o/2] = i / 2
		}
	}
	half := (need + 1) / 2
	// The halves run one after the other on the tables past this level's.
	r.rec(upSrc, half, arena[3*n:])
	r.rec(loSrc, half, arena[3*n:])
	for k := range half {
		r.ctl = append(r.ctl, viaUpper[2*k] == 0) // output 2k from the lower half: crossed
	}
}

// benesApply runs the pruned network on values (a reference model for tests): it
// returns the outputs [0, need) for the given control bits.
func benesApply[T any](in []T, need int, ctl []bool) ([]T, error) {
	out, rest, err := benesApplyRec(in, need, ctl)
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("aggregate: %d control bits left over", len(rest))
	}
	return out, err
}

func benesApplyRec[T any](in []T, need int, ctl []bool) ([]T, []bool, error) {
	n := len(in)
	out := make([]T, n)
	if need <= 0 {
		return out, ctl, nil
	}
	take := func() (bool, error) {
		if len(ctl) == 0 {
			return false, fmt.Errorf("aggregate: too few control bits")
		}
		s := ctl[0]
		ctl = ctl[1:]
		return s, nil
	}
	sw := func(x, y T) (T, T, error) {
		s, err := take()
		if s {
			return y, x, err
		}
		return x, y, err
	}
	var err error
	if n == 2 {
		out[0], out[1], err = sw(in[0], in[1])
		return out, ctl, err
	}
	up, lo := make([]T, n/2), make([]T, n/2)
	for k := range n / 2 {
		if up[k], lo[k], err = sw(in[2*k], in[2*k+1]); err != nil {
			return nil, nil, err
		}
	}
	half := (need + 1) / 2
	uo, ctl2, err := benesApplyRec(up, half, ctl)
	if err != nil {
		return nil, nil, err
	}
	lo2, ctl3, err := benesApplyRec(lo, half, ctl2)
	if err != nil {
		return nil, nil, err
	}
	ctl = ctl3
	for k := range half {
		if out[2*k], out[2*k+1], err = sw(uo[k], lo2[k]); err != nil {
			return nil, nil, err
		}
	}
	return out, ctl, nil
}
