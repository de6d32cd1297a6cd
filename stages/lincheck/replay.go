package lincheck

import "github.com/leanpipe/leanpipe/field"

// Weights writes the public term's window weights mask(j)·eq(τ, j) into dst (2^Log
// entries): the factor VerifyPublic's terminal applies to the window's column
// weights, for a recursive verifier that replays the terminal on revealed values.
func (w Window) Weights(dst, tau []field.E) { w.weights(dst, tau) }
