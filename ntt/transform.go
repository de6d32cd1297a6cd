package ntt

import (
	"fmt"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// lanesOf returns len/2^LogD, panicking unless len is a positive multiple of 2^LogD.
func (p *Plan) lanesOf(n int, what string) int {
	lanes := n >> p.logD
	if lanes < 1 || lanes<<p.logD != n {
		panic(fmt.Sprintf("ntt: %s: length %d is not a positive multiple of 2^%d", what, n, p.logD))
	}
	return lanes
}

// ForwardK transforms v in place from novel-basis coefficients to evaluations at
// q = 0..2^LogD−1. v holds lanes = len(v)/2^LogD independent vectors interleaved:
// v[i·lanes + ℓ] is entry i of vector ℓ. The workers share the work.
func (p *Plan) ForwardK(v []field.K, w par.Workers) {
	lanes := p.lanesOf(len(v), "ForwardK")
	e := engine{p: p, buf: kWords(v), s: lanes, n: lanes, w: w}
	e.run()
}

// ForwardE is [Plan.ForwardK] for E vectors (the twiddles stay in K).
func (p *Plan) ForwardE(v []field.E, w par.Workers) {
	lanes := p.lanesOf(len(v), "ForwardE")
	e := engine{p: p, buf: eWords(v), s: 3 * lanes, n: 3 * lanes, w: w}
	e.run()
}

// InverseK undoes [Plan.ForwardK]: evaluations at q = 0..2^LogD−1 back to novel-basis
// coefficients, for the same interleaved layout. It runs on the calling goroutine.
func (p *Plan) InverseK(v []field.K) {
	lanes := p.lanesOf(len(v), "InverseK")
	p.inverseWords(kWords(v), lanes)
}

// InverseE is [Plan.InverseK] for E vectors.
func (p *Plan) InverseE(v []field.E) {
	lanes := p.lanesOf(len(v), "InverseE")
	p.inverseWords(eWords(v), 3*lanes)
}

func (p *Plan) inverseWords(buf []uint64, s int) {
	for layer := p.logD - 1; layer >= 0; layer-- {
		half := (1 << (p.logD - layer - 1)) * s
		for b := range 1 << layer {
			u := buf[2*b*half : (2*b+1)*half]
			inv(u, buf[(2*b+1)*half:(2*b+2)*half], p.twiddle(layer, b))
		}
	}
}
