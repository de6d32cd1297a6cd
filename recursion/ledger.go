package recursion

import (
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/ringswitch"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// Gate costs of the Boolean R1CS (one AND is one constraint and one committed
// column): a K×K product by Karatsuba down to bits is 3^6 ANDs (the reduction modulo
// x^64 + x^4 + x^3 + x + 1 is GF(2)-linear, so free); E×E is six K products
// (Karatsuba over y^3 + y + 1), E×K three. A BLAKE2s compression is one 2^14-column
// slot. Additions, squarings, Frobenius maps, products by constants, eq factors
// (eq(a, b) = 1 + a + b in characteristic 2) and subspace polynomials are linear.
const (
	ANDsKK       = 729
	ANDsEE       = 6 * ANDsKK
	ANDsEK       = 3 * ANDsKK
	ANDsSwapBit  = 1 // a conditional swap of two bits: t = s·(a + b)
	SlotLog      = 14
	slotColumns  = 1 << SlotLog
	digestBits   = 256
	blockBytes   = 64
	kBytes       = 8
	skipDomain   = 1 << lincheck.KSkip
	sliceValues  = lincheck.KBits
	ringStages   = len(ringswitch.MapShifts)
	roundDegree  = 3 // zerocheck and lincheck round polynomials
	whirDegree   = 2 // WHIR sumcheck round polynomials
	claimsPerOOD = 1
)

// Ops counts what one part of a child's verification costs in-circuit.
type Ops struct {
	EE, EK      int    // E×E and E×K products of variable operands
	Compress    int    // BLAKE2s compressions (transcript and Merkle)
	SwapBits    int    // bits conditionally swapped on a Merkle path
	Description string // what the stage's checks are
}

// ANDs is the constraint count of o's field and swap work (compressions apart).
func (o Ops) ANDs() int64 {
	return int64(o.EE)*ANDsEE + int64(o.EK)*ANDsEK + int64(o.SwapBits)*ANDsSwapBit
}

// Slots is o's cost in 2^14-column slots: one per compression plus its ANDs.
func (o Ops) Slots() float64 { return float64(o.Compress) + float64(o.ANDs())/slotColumns }

func (o *Ops) add(p Ops) {
	o.EE += p.EE
	o.EK += p.EK
	o.Compress += p.Compress
	o.SwapBits += p.SwapBits
}

// Level is one WHIR level's opening as the verifier performed it.
type Level struct {
	Folds      int // variables folded before the level's queries
	MessageLog int // variables left after them
	Queries    int // positions opened
	Depth      int // Merkle path length (log2 of the codeword's rows)
	LeafWords  int // words of a leaf image
	RowWords   int // words of it the proof carries (the rest are leading zeros)
	LeafBlocks int // compressions per leaf that depend on the row (leading all-zero blocks are constants)
}

// MerkleCompressions is the level's Merkle work: per query its leaf's blocks and one
// compression per path node.
func (l Level) MerkleCompressions() int { return l.Queries * (l.LeafBlocks + l.Depth) }

// Stage is the cost of one stage of a child's verification.
type Stage struct {
	Name string
	Ops
}

// Ledger is what verifying one xmss-aggregate child costs a recursion circuit.
type Ledger struct {
	N, LogInvRate int
	Shape         flows.Shape
	// Transcript compressions as the verifier ran them: in all, the part fixed by
	// the label alone (a constant chaining value in-circuit), and the statement's
	// bytes (message, epoch, key list).
	TranscriptTotal, TranscriptConstant, TranscriptStatement int
	// StreamScalars is the number of E scalars in the child's proof stream (what
	// revealing its whole stream would cost a parent, 24 bytes each).
	StreamScalars int
	Levels        []Level
	Stages        []Stage
	// Deferred lists the evaluations the child's verification raises that a
	// parent exports as claims instead of computing.
	Deferred []string
}

// Total sums the stages.
func (l *Ledger) Total() Ops {
	var t Ops
	for _, s := range l.Stages {
		t.add(s.Ops)
	}
	return t
}

// Queries returns the queries per level.
func (l *Ledger) Queries() []int {
	q := make([]int, len(l.Levels))
	for i, lv := range l.Levels {
		q[i] = lv.Queries
	}
	return q
}

// recorder is the verifier's transcript with its Merkle openings recorded.
type recorder struct {
	*transcript.Verifier
	openings []Level
	// Every sample drawn, in order; whirFrom indexes the opening's first.
	samples  []field.E
	whirFrom int
	// From the opening on (whir set): every query set, opened rows with their root,
	// and the claim of every round polynomial read, in order.
	whir    bool
	queries [][]int
	rows    [][][]uint64
	roots   []merkle.Digest
	claims  []field.E
	// afterOpen[l] indexes claims: the first round claim read after level l's opening.
	afterOpen []int
}

func (r *recorder) Sample() field.E {
	x := r.Verifier.Sample()
	r.samples = append(r.samples, x)
	return x
}

func (r *recorder) SampleQueries(blockLen, count int) []int {
	q := r.Verifier.SampleQueries(blockLen, count)
	if r.whir {
		r.queries = append(r.queries, q)
	}
	return q
}

func (r *recorder) RoundPoly(count int, claim field.E, eq *field.E) ([]field.E, error) {
	if r.whir {
		r.claims = append(r.claims, claim)
	}
	return r.Verifier.RoundPoly(count, claim, eq)
}

func (r *recorder) Merkle(root merkle.Digest, blockLen int, queries []int, leafWords int) ([][]uint64, error) {
	return r.MerklePadded(root, blockLen, queries, leafWords, leafWords)
}

func (r *recorder) MerklePadded(root merkle.Digest, blockLen int, queries []int, rowWords, leafWords int) ([][]uint64, error) {
	rows, err := r.Verifier.MerklePadded(root, blockLen, queries, rowWords, leafWords)
	if err == nil && r.whir {
		r.rows = append(r.rows, rows)
		r.roots = append(r.roots, root)
		r.afterOpen = append(r.afterOpen, len(r.claims)) // the next round claim is the level's enforced sum
	}
	if err == nil {
		r.openings = append(r.openings, openedLevel(len(queries), bits.Len(uint(blockLen))-1, rowWords, leafWords))
	}
	return rows, err
}

// openedLevel is a Merkle opening of queries rows of rowWords words (leafWords wide
// leaf images) in a tree of the given depth, as a Level (its folds not yet known).
func openedLevel(queries, depth, rowWords, leafWords int) Level {
	zeroBlocks := (leafWords - rowWords) * kBytes / blockBytes
	return Level{Queries: queries, Depth: depth, LeafWords: leafWords, RowWords: rowWords,
		LeafBlocks: (leafWords*kBytes+blockBytes-1)/blockBytes - zeroBlocks}
}

// profileLevels checks the openings a verifier ran against the WHIR profile cfg (one
// per level, its queries and depth) and completes them with the levels' folds.
func profileLevels(cfg *open.Config, opened []Level) ([]Level, error) {
	if len(opened) != cfg.Levels() {
		return nil, fmt.Errorf("recursion: %d Merkle openings for %d WHIR levels", len(opened), cfg.Levels())
	}
	out := make([]Level, len(opened))
	for i, lv := range opened {
		lv.Folds, lv.MessageLog = cfg.Folds[i], cfg.MessageLog(i)
		if lv.Queries != cfg.Queries[i] || lv.Depth != cfg.BlockLog(i) {
			return nil, fmt.Errorf("recursion: level %d opened %d queries at depth %d, the profile says %d at %d",
				i, lv.Queries, lv.Depth, cfg.Queries[i], cfg.BlockLog(i))
		}
		out[i] = lv
	}
	return out, nil
}

// ErrNotAggregate reports a statement of another flow.
var ErrNotAggregate = errors.New("recursion: the ledger measures xmss-aggregate proofs")

// replayed is one pass of a child's verification through the verifier stages.
type replayed struct {
	sh    flows.Shape
	bind  flows.Binding
	tr    *recorder
	alpha field.E // the lincheck's α, its first challenge
	zc    zerocheck.Result
	lc    lincheck.Claim
	// Transcript compressions: the label's, the statement's, and each stage's
	// (root and zerocheck, lincheck, ring switch, opening).
	constant, statement, zcC, lcC, ringC, whirC int
}

// replay verifies proof against st, an xmss-aggregate statement, with the lincheck's
// matrices and public term given by c and pub (nil: the statement's table), tracing the
// transcript's compressions after the label into trace (nil: none).
func replay(proof *transcript.Proof, st flows.Statement, c lincheck.Matrices, pub func(lincheck.Public) lincheck.Public, trace func(transcript.Step)) (*replayed, error) {
	if st.Flow != "" && st.Flow != aggregate.FlowName {
		return nil, fmt.Errorf("%w, not %q", ErrNotAggregate, st.Flow)
	}
	sh, err := aggregate.Flow.Shape(st.N, st.LogInvRate)
	if err != nil {
		return nil, err
	}
	bind, err := aggregate.Bind(st)
	if err != nil {
		return nil, err
	}
	label := []byte(aggregate.FlowLabel)
	rp := &replayed{sh: sh, bind: bind, constant: transcript.NewVerifier(nil, label, nil).Compressions()}
	tr := &recorder{Verifier: transcript.NewVerifier(proof, label, nil)}
	tr.Trace(trace)
	rp.tr = tr
	mark := tr.Compressions()
	since := func() int {
		n := tr.Compressions() - mark
		mark = tr.Compressions()
		return n
	}
	tr.AbsorbBytes(bind.Absorb)
	rp.statement = since()
	root, err := open.ReceiveRoot(tr)
	if err != nil {
		return nil, err
	}
	if rp.zc, err = zerocheck.VerifyWith(tr, sh.M()); err != nil {
		return nil, err
	}
	rp.zcC = since()
	public := bind.Public
	if pub != nil {
		public = pub(public)
	}
	lcFrom := len(tr.samples)
	if rp.lc, err = lincheck.VerifyPublic(tr, c, lincheck.ZerocheckClaims(rp.zc), public); err != nil {
		return nil, err
	}
	rp.alpha = tr.samples[lcFrom]
	rp.lcC = since()
	ring := ringswitch.Verify(tr, rp.lc.Point, rp.lc.S)
	rp.ringC = since()
	tr.whir, tr.whirFrom = true, len(tr.samples)
	if err := open.VerifyStacked(tr, root, sh.Commitment(), open.Placement{Variables: sh.Mu, Offset: 0}, ring, nil); err != nil {
		return nil, err
	}
	rp.whirC = since()
	if err := tr.Finish(); err != nil {
		return nil, err
	}
	return rp, nil
}

// Measure verifies proof (raw or wire form) against st, an xmss-aggregate statement,
// through the verifier stages with a recording transcript, and returns the ledger of
// that verification. A proof that does not verify is an error: the ledger only
// describes verifications that pass.
func Measure(proof *transcript.Proof, st flows.Statement) (*Ledger, error) {
	c := aggregate.Matrices()
	rp, err := replay(proof, st, c, nil, nil)
	if err != nil {
		return nil, err
	}
	sh, tr := rp.sh, rp.tr
	l := &Ledger{N: st.N, LogInvRate: st.LogInvRate, Shape: sh, StreamScalars: tr.Offset(),
		TranscriptConstant: rp.constant, TranscriptStatement: rp.statement, TranscriptTotal: tr.Compressions()}
	pub := rp.bind.Public
	cfg, err := open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	if err != nil {
		return nil, err
	}
	if l.Levels, err = profileLevels(cfg, tr.openings); err != nil {
		return nil, err
	}

	rounds := c.LogSize() - lincheck.KSkip
	win := pub.Window()
	l.Stages = []Stage{
		{"statement", Ops{Compress: l.TranscriptStatement, Description: "message, epoch and keys absorbed"}},
		{"zerocheck", zerocheckOps(sh.M(), rp.zcC)},
		{"lincheck", lincheckOps(rounds, win, rp.lcC)},
		{"ring switch", ringOps(sh.Mu, rp.ringC)},
		{"whir", whirOps(l.Levels, rp.whirC)},
		{"merkle", merkleOps(l.Levels)},
	}
	l.Deferred = []string{
		fmt.Sprintf("A0 and B0 of the %s circuit at the tensor point (L(z_skip) ⊗ eq(chi_in), s ⊗ eq(chi_in')): %d + %d + 64 + %d coordinates and values", aggregate.FlowName, 1, rounds, rounds),
		fmt.Sprintf("the key table P(tau, chi_out): %d + %d coordinates", win.Log, sh.NLog),
	}
	return l, nil
}

// lagrange is the cost of the 64 (n) Lagrange weights at a variable point over a
// constant domain: the product of the differences (n−1), their batch inversion
// (3(n−1) and one hinted inverse), and the weights (n).
func lagrange(n int) Ops {
	return Ops{EE: (n - 1) + 3*(n-1) + 1 + n}
}

// zerocheckOps: the coset interpolation at z (Lagrange weights and their inner
// product with the 64 values), per round the eq-pulled c0 (a product by a sampled
// r_i; the NInner fixed ones are constants) and a degree-3 Horner evaluation, and
// v_c = running + v_a·v_b.
func zerocheckOps(m, compress int) Ops {
	rounds := m - lincheck.KSkip
	o := lagrange(skipDomain)
	o.EE += skipDomain
	o.EE += roundDegree*rounds + (rounds - zerocheck.NInner) + 1
	o.Compress = compress
	o.Description = fmt.Sprintf("%d rounds of degree %d, 64-point coset interpolation", rounds, roundDegree)
	return o
}

// lincheckOps: the target v_a + α·v_b + α²·v_c + α³ and the public term's α⁴·P (P
// deferred), per round a degree-3 Horner evaluation, and the terminal: skip
// weights at z_skip, eq(chi_in, chi_in') (linear factors: rounds−1 products), ⟨L, s⟩,
// the constant column's weight s_c·eq(chi_in', c_hi), the public window's
// Σ_j mask(j)·eq(τ, j)·s_{j mod 64}·eq(chi_in', hi(j)) in tensor form (the window is
// 64-aligned: u_l = eq(τ_lo, l)·s_l for the 64 low indices, the masked sums of u per
// high index are additions, then per high index eq(τ_hi, h)·eq(chi_in', hi)·sum),
// and the deferred bilinear value's v_A + α·v_B.
func lincheckOps(rounds int, win lincheck.Window, compress int) Ops {
	o := Ops{EE: 3 + 1}
	o.EE += roundDegree * rounds
	lg := lagrange(skipDomain)
	lg.EE -= skipDomain // no inner product with values here
	o.add(lg)
	o.EE += (rounds - 1) + sliceValues + 2
	o.EE += (rounds - 1) + 2
	lo := min(win.Log, lincheck.KSkip)
	hi := 1 << (win.Log - lo)
	o.EE += 1<<lo + 1<<lo                  // eq(τ_lo) table and u
	o.EE += hi                             // eq(τ_hi) table
	o.EE += (rounds - (win.Log - lo)) + hi // eq(chi_in', ·) over the window's high indices
	o.EE += 2*hi + 1
	o.EE++
	o.Compress = compress
	o.Description = fmt.Sprintf("%d rounds; A0, B0 and the key table deferred", rounds)
	return o
}

// ringOps: Φ's Frobenius coefficients (one product per set bit past the first of
// each k < 64), the target Σ g^i·Φ(s_i) (six products per Φ), and W's evaluation at
// the opening's point, Σ_k c_k·Π_n (1 + point_n^(2^k) + r_n) (mu products per k), with
// the stacked claim's scale.
func ringOps(mu, compress int) Ops {
	coeff := 0
	for k := 1; k < lincheck.KBits; k++ {
		coeff += bits.OnesCount(uint(k)) - 1
	}
	o := Ops{EE: coeff + sliceValues*ringStages + lincheck.KBits*mu + 2, Compress: compress}
	o.Description = fmt.Sprintf("Φ of %d stages, weight over %d variables", ringStages, mu)
	return o
}

// whirOps: per fold round a degree-2 Horner evaluation; per level the λ powers, the
// eq table of its folds, each opened row's inner product with it (K×E at level 0,
// E×E later) and weight, the claims' combination (λ·scale, the intro quadratic,
// the running sum); per non-final level an out-of-domain claim, evaluated at the end
// as eq(z, x); per level its queries' induced weight at the end (per query and
// coordinate one K×E and one E×E); the final residual's multilinear evaluation.
func whirOps(levels []Level, compress int) Ops {
	var o Ops
	for i, lv := range levels {
		final := i == len(levels)-1
		o.EE += whirDegree * lv.Folds
		o.EE += lv.Queries
		o.EE += 1 << lv.Folds
		if i == 0 {
			o.EK += lv.Queries << lv.Folds
		} else {
			o.EE += lv.Queries << lv.Folds
		}
		o.EE += lv.Queries
		claims := 1
		if !final {
			claims += claimsPerOOD
			o.EE += lv.MessageLog - 1
		}
		o.EE += 5 * claims
		o.EE += lv.Queries * (lv.MessageLog + 1)
		o.EK += lv.Queries * lv.MessageLog
		if final {
			o.EE += whirDegree*lv.MessageLog + (1 << lv.MessageLog) - 1 + 1
		}
	}
	o.Compress = compress
	o.Description = fmt.Sprintf("%d levels", len(levels))
	return o
}

// merkleOps: every query's leaf and path, each path node a conditional swap of two
// digests on the query's bit.
func merkleOps(levels []Level) Ops {
	var o Ops
	for _, lv := range levels {
		o.Compress += lv.MerkleCompressions()
		o.SwapBits += lv.Queries * lv.Depth * digestBits
	}
	o.Description = "raw paths, one per query"
	return o
}

// WriteTable prints the ledger as a Markdown table with totals.
func (l *Ledger) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "child: %d signatures, log inv rate %d, m = %d, mu = %d\n\n", l.N, l.LogInvRate, l.Shape.M(), l.Shape.Mu)
	fmt.Fprintf(w, "| stage | checks | compressions | E×E | E×K | swapped bits | ANDs | slots |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range l.Stages {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %d | %.0f |\n", s.Name, s.Description, s.Compress, s.EE, s.EK, s.SwapBits, s.ANDs(), s.Slots())
	}
	t := l.Total()
	fmt.Fprintf(w, "| **total** | | %d | %d | %d | %d | %d | **%.0f** |\n\n", t.Compress, t.EE, t.EK, t.SwapBits, t.ANDs(), t.Slots())
	fmt.Fprintf(w, "transcript: %d compressions run, %d of them fixed by the label alone; stream of %d scalars\n",
		l.TranscriptTotal, l.TranscriptConstant, l.StreamScalars)
	fmt.Fprintf(w, "levels:")
	for _, lv := range l.Levels {
		fmt.Fprintf(w, " [folds %d, queries %d, depth %d, leaf blocks %d]", lv.Folds, lv.Queries, lv.Depth, lv.LeafBlocks)
	}
	fmt.Fprintln(w)
}
