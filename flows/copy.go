package flows

import (
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// Copy claims between segments (docs/recursion.md §6.4): a claim that n words of one
// segment's column equal n words of another's (or the same) segment's, pair by pair,
// col_From(FromWords[i]) = col_To(ToWords[i]). After the last ring switch, before the
// linear claims, each copy claim in order draws τ (⌈log2 n⌉ coordinates), the prover
// sends v = Σ_i eq(τ, i)·col_From(FromWords[i]), and the claim becomes two linear
// claims of value v with coefficients eq(τ, i): one on From's words, one on To's,
// appended to Evaluations.Linear in that order and proved with them.
//
// If some pair differs, Σ_i eq(τ, i)·(col_From(FromWords[i]) − col_To(ToWords[i])) is
// a nonzero multilinear polynomial in τ, zero with probability at most ⌈log2 n⌉/|E|;
// otherwise v makes at least one of the two linear claims false. Each side's weight is
// Σ_i eq(τ, i)·eq(word_i, ·), the multilinear extension at (τ, ·) of a fixed selection
// matrix (row i has a single 1 at word_i), so a verifier that cannot evaluate it now
// may defer it as a claim on a fixed polynomial, as the lincheck's matrices are.

// CopyClaim is col_From(FromWords[i]) = col_To(ToWords[i]) for every i, on packed K
// words of two segments' columns (word-in-block bits low, then the slot bits).
type CopyClaim struct {
	From, To           int
	FromWords, ToWords []int
}

func checkCopies(copies []CopyClaim, places []open.Placement) error {
	for i, c := range copies {
		if len(c.FromWords) == 0 || len(c.FromWords) != len(c.ToWords) {
			return fmt.Errorf("%w: copy claim %d pairs %d words with %d", ErrInput, i, len(c.FromWords), len(c.ToWords))
		}
		for _, side := range []struct {
			seg   int
			words []int
			name  string
		}{{c.From, c.FromWords, "from"}, {c.To, c.ToWords, "to"}} {
			if side.seg < 0 || side.seg >= len(places) {
				return fmt.Errorf("%w: copy claim %d: %s segment %d of %d", ErrInput, i, side.name, side.seg, len(places))
			}
			n := 1 << places[side.seg].Variables
			for j, w := range side.words {
				if w < 0 || w >= n {
					return fmt.Errorf("%w: copy claim %d, %s word %d: %d of a %d-word column", ErrInput, i, side.name, j, w, n)
				}
			}
		}
	}
	return nil
}

// copyCoeffs returns eq(τ, i) for the claim's n pairs, τ drawn from sample.
func copyCoeffs(n int, sample func() field.E) []field.E {
	tau := make([]field.E, bits.Len(uint(n-1)))
	for i := range tau {
		tau[i] = sample()
	}
	eq := make([]field.E, 1<<len(tau))
	field.EqTable(eq, tau)
	return eq[:n]
}

// copyLinear is the copy claim's two linear claims at coefficients eq and value v.
func copyLinear(c CopyClaim, eq []field.E, v field.E) [2]LinearClaim {
	from := LinearClaim{Segment: c.From, Terms: make([]LinearTerm, len(eq)), Value: v}
	to := LinearClaim{Segment: c.To, Terms: make([]LinearTerm, len(eq)), Value: v}
	for i, e := range eq {
		from.Terms[i] = LinearTerm{Word: c.FromWords[i], Coeff: e}
		to.Terms[i] = LinearTerm{Word: c.ToWords[i], Coeff: e}
	}
	return [2]LinearClaim{from, to}
}

// proveCopies runs the copy claims' prover side and returns their linear claims.
func proveCopies(tr *transcript.Prover, copies []CopyClaim, places []open.Placement, stack []field.K) ([]LinearClaim, error) {
	if err := checkCopies(copies, places); err != nil {
		return nil, err
	}
	out := make([]LinearClaim, 0, 2*len(copies))
	for _, c := range copies {
		eq := copyCoeffs(len(c.FromWords), tr.Sample)
		col := stack[places[c.From].Offset:]
		var v field.E
		for i, e := range eq {
			v = v.Add(e.MulK(col[c.FromWords[i]]))
		}
		tr.Send(v)
		lc := copyLinear(c, eq, v)
		out = append(out, lc[0], lc[1])
	}
	return out, nil
}

// verifyCopies is proveCopies' verifier twin.
func verifyCopies(tr *transcript.Verifier, copies []CopyClaim, places []open.Placement) ([]LinearClaim, error) {
	if err := checkCopies(copies, places); err != nil {
		return nil, err
	}
	out := make([]LinearClaim, 0, 2*len(copies))
	for i, c := range copies {
		eq := copyCoeffs(len(c.FromWords), tr.Sample)
		v, err := tr.Receive()
		if err != nil {
			return nil, fmt.Errorf("flows: copy claim %d: %w", i, err)
		}
		lc := copyLinear(c, eq, v)
		out = append(out, lc[0], lc[1])
	}
	return out, nil
}

// linearWithCopies is ev's linear claims followed by its copy claims' (the copies'
// transcript steps run first).
func (ev *Evaluations) linearWithCopies(copies []LinearClaim) []LinearClaim {
	if len(copies) == 0 {
		return ev.Linear
	}
	out := make([]LinearClaim, 0, len(ev.Linear)+len(copies))
	return append(append(out, ev.Linear...), copies...)
}
