package recursion

import (
	"fmt"
	"io"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// MergedLedger is what verifying a merged proof as a child would cost a recursion
// circuit (docs/recursion.md §6), measured on a real merged proof.
//
// Own is the merged proof's own verification, stage by stage, in the units of a
// leaf's Ledger: its transcript (the statement with every child's interface, each
// segment's zerocheck, lincheck and ring switch, the linear claims' sumcheck, the
// opening) and its Merkle paths. PinnedBits are the bits its segments' public terms
// pin, all built from the children's interfaces (copies of challenges, roots and
// chaining values, query index bits, eq tables and points): a grandparent holding
// the interfaces only as committed data must evaluate each public term from them.
//
// Derived is, per child of the merged proof, the work its verifier does natively on
// that child's revealed interface and that is not linear in it: the stream checks'
// coefficients (products of the child's challenges), the query pins' eq tables, and
// the weights of the child's two deferred claims once they are batched. A merged
// proof's verifier computes them from revealed values; a grandparent, which holds the
// interface only as committed data (revealing it again would make proofs grow with the
// tree), must compute them in-circuit.
type MergedLedger struct {
	Children, N, LogInvRate int
	Trace                   *flows.SegmentsTrace
	Levels                  []Level
	Own                     []Stage
	PinnedBits              int
	Derived                 [][]Stage
	// InterfaceBytes is each child's revealed interface as the merged statement
	// encodes it. RevealBytes estimates what revealing the merged proof's own
	// interface the same way would take, counted from the traced verification: its
	// challenges, roots, per segment v_a, v_b and the 64 slice values, per level the
	// enforced sum, induced weight, nonce and grinding chaining value, and the
	// transcript's block boundaries (without the encoding's length prefixes and the
	// segments' deferred values, so a lower bound).
	InterfaceBytes []int
	RevealBytes    int
}

// OwnTotal sums Own; DerivedTotal sums Derived over every child.
func (l *MergedLedger) OwnTotal() Ops {
	var t Ops
	for _, s := range l.Own {
		t.add(s.Ops)
	}
	return t
}

// DerivedTotal sums Derived over every child.
func (l *MergedLedger) DerivedTotal() Ops {
	var t Ops
	for _, c := range l.Derived {
		for _, s := range c {
			t.add(s.Ops)
		}
	}
	return t
}

// MeasureMerged verifies m through the segmented verifier with its transcript traced
// and returns the ledger of that verification. A merged proof that does not verify is
// an error.
func MeasureMerged(m *Merged) (*MergedLedger, error) {
	mc, err := m.checks()
	if err != nil {
		return nil, err
	}
	var onChain, squeezes int
	step := func(s transcript.Step) {
		if !s.OnChain {
			return
		}
		onChain++
		if s.Block == squeezeBlock {
			squeezes++
		}
	}
	tr, err := flows.VerifySegmentsTraced(m.Proof, MergeLabel, m.statementBytes(), mc.shapes, mc.ev, m.LogInvRate, step)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMerged, err)
	}
	l := &MergedLedger{Children: len(m.Children), N: len(m.Keys), LogInvRate: m.LogInvRate, Trace: tr}
	cfg, err := open.DeriveConfig(tr.StackLog, m.LogInvRate)
	if err != nil {
		return nil, err
	}
	opened := make([]Level, len(tr.Openings))
	for i, o := range tr.Openings {
		opened[i] = openedLevel(o.Queries, o.Depth, o.RowWords, o.LeafWords)
	}
	if l.Levels, err = profileLevels(cfg, opened); err != nil {
		return nil, err
	}

	l.Own = append(l.Own, Stage{"statement", Ops{Compress: tr.Start,
		Description: fmt.Sprintf("layout, message, epoch, %d keys, %d children's interfaces absorbed", len(m.Keys), len(m.Children))}})
	names := []string{"T"}
	for range len(tr.Segments) - 2 {
		names = append(names, "Q")
	}
	names = append(names, "G")
	for i, s := range tr.Segments {
		o := zerocheckOps(s.M, s.Compressions)
		lc := lincheckOps(s.LogSize-lincheck.KSkip, lincheck.Window{Log: s.WindowLog}, 0)
		o.add(lc)
		o.add(ringOps(s.Mu, 0))
		o.Description = fmt.Sprintf("zerocheck, lincheck (matrices and public term deferred), ring switch: m = %d", s.M)
		l.Own = append(l.Own, Stage{fmt.Sprintf("segment %d (%s)", i, names[i]), o})
		if pub := mc.shapes[i].Public; pub != nil {
			l.PinnedBits += pub.Window().Pinned() << (s.M - s.LogSize)
		}
	}
	r := tr.LinearRounds
	lin := Ops{Compress: tr.Linear, EE: whirDegree*r + 2*tr.LinearTerms + 1<<(r/2) + 1<<(r-r/2) + tr.LinearClaims,
		Description: fmt.Sprintf("%d claims of %d terms, %d rounds; the weight read at ρ term by term", tr.LinearClaims, tr.LinearTerms, r)}
	l.Own = append(l.Own,
		Stage{"linear claims", lin},
		Stage{"evaluations", Ops{Compress: tr.Evaluations, Description: "the point claims' values"}},
		Stage{"whir", whirOps(l.Levels, tr.Opening)},
		Stage{"merkle", merkleOps(l.Levels)})

	for i, p := range mc.plans {
		l.InterfaceBytes = append(l.InterfaceBytes, len(m.Interfaces[i].appendBinary(nil)))
		terms := 0
		for _, c := range p.sc.Checks {
			terms += len(c.Value.Terms)
		}
		var eqs, queries int
		for _, lq := range p.levels {
			eqs += 1 << len(lq.Folds)
			queries += len(lq.Queries)
		}
		mx, key := p.sc.Matrix, p.sc.Key
		l.Derived = append(l.Derived, []Stage{
			{"stream coefficients", Ops{EE: terms, Description: fmt.Sprintf("%d terms of %d checks, each a product of challenges", terms, len(p.sc.Checks))}},
			{"query pins", Ops{EE: eqs + queries, Description: fmt.Sprintf("eq tables of the folds (%d entries), λ powers of %d queries", eqs, queries)}},
			{"matrix claim weight", Ops{EE: len(mx.Row.Low) + len(mx.Row.High) + len(mx.Col.Low) + len(mx.Col.High) + 2,
				Description: "e_row ⊗ w_col at the batching point, from its four factors"}},
			{"key claim weight", Ops{EE: 1<<len(key.Tau) + 2*len(key.ChiOut), Description: "eq(τ) and the shifted range-eq of the child's slots"}},
		})
	}
	const eBytes, wordsBytes = 24, 32 // an E value; a digest or chaining value
	levels := len(l.Levels)
	boundaries := (onChain+TranscriptSteps-1)/TranscriptSteps + 1
	l.RevealBytes = squeezes*eBytes + // challenges
		len(tr.Segments)*(2+lincheck.KBits)*eBytes + // v_a, v_b, slice values
		levels*(wordsBytes+3*eBytes+wordsBytes) + // root, enforced, induced, nonce, grinding value
		boundaries*wordsBytes
	return l, nil
}

// WriteTable prints the ledger as Markdown tables with totals.
func (l *MergedLedger) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "merged proof: %d children, %d keys, log inv rate %d, stack 2^%d words, %d segments\n\n",
		l.Children, l.N, l.LogInvRate, l.Trace.StackLog, len(l.Trace.Segments))
	row := func(name, desc string, o Ops) {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %.0f |\n", name, desc, o.Compress, o.EE, o.EK, o.SwapBits, o.Slots())
	}
	fmt.Fprintf(w, "| own verification | checks | compressions | E×E | E×K | swapped bits | slots |\n|---|---|---|---|---|---|---|\n")
	for _, s := range l.Own {
		row(s.Name, s.Description, s.Ops)
	}
	t := l.OwnTotal()
	row("**total**", "", t)
	fmt.Fprintf(w, "\npinned bits (the public terms' tables, built from the interfaces): %d\n\n", l.PinnedBits)
	fmt.Fprintf(w, "| derived from child i's interface | checks | E×E | slots |\n|---|---|---|---|\n")
	for i, c := range l.Derived {
		for _, s := range c {
			fmt.Fprintf(w, "| child %d: %s | %s | %d | %.0f |\n", i, s.Name, s.Description, s.EE, s.Slots())
		}
	}
	d := l.DerivedTotal()
	fmt.Fprintf(w, "| **total** | | %d | %.0f |\n\n", d.EE, d.Slots())
	fmt.Fprintf(w, "transcript: %d compressions (%d fixed by the label), stream of %d scalars; interfaces %v bytes; revealing this proof's own interface: %d bytes\n",
		l.Trace.Total, l.Trace.Label, l.Trace.StreamScalars, l.InterfaceBytes, l.RevealBytes)
	fmt.Fprintf(w, "levels:")
	for _, lv := range l.Levels {
		fmt.Fprintf(w, " [folds %d, queries %d, depth %d, leaf blocks %d]", lv.Folds, lv.Queries, lv.Depth, lv.LeafBlocks)
	}
	fmt.Fprintln(w)
}
