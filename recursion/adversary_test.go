package recursion

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/ringswitch"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// Adversarial review of the merged proofs' pieces (issue 22). ChildStream is checked
// against the real verifier stages differentially: with the child's challenges, query
// positions, opened rows and nonces held fixed (what the merged proof pins through its
// transcript, query and grinding blocks), every stream that satisfies ChildStream's
// checks must pass the real stages (zerocheck.VerifyWith, lincheck.VerifyPublic,
// ringswitch.Verify, open.VerifyStacked) run on it. A check ChildStream lacks, or a
// stream value it takes as public, shows as a stream in the checks' kernel that the
// real stages refuse.

// fixedTranscript is a verifier transcript whose stream is given and whose
// challenges, query positions, opened rows (with the root they open) and grinding
// nonces are the ones a recording pass saw.
type fixedTranscript struct {
	stream         []field.E
	off            int
	samples        []field.E
	queries        [][]int
	roots          []merkle.Digest
	rows           [][][]uint64
	nonces         []field.E
	si, qi, ri, ni int
}

var errFixed = errors.New("fixed transcript: out of recorded values")

func (f *fixedTranscript) Observe(field.E) {}

func (f *fixedTranscript) Sample() field.E {
	if f.si >= len(f.samples) {
		panic(errFixed)
	}
	f.si++
	return f.samples[f.si-1]
}

func (f *fixedTranscript) SampleQueries(int, int) []int {
	if f.qi >= len(f.queries) {
		panic(errFixed)
	}
	f.qi++
	return f.queries[f.qi-1]
}

func (f *fixedTranscript) Receive() (field.E, error) {
	if f.off >= len(f.stream) {
		return field.Zero, errFixed
	}
	f.off++
	return f.stream[f.off-1], nil
}

// RoundPoly is transcript.Verifier.RoundPoly on the given stream.
func (f *fixedTranscript) RoundPoly(count int, claim field.E, eq *field.E) ([]field.E, error) {
	return transcript.ReadRoundPoly(f.Receive, count, claim, eq)
}

func (f *fixedTranscript) GrindCheck(int) error {
	x, err := f.Receive()
	if err != nil {
		return err
	}
	if f.ni >= len(f.nonces) {
		panic(errFixed)
	}
	f.ni++
	if x != f.nonces[f.ni-1] {
		return errors.New("fixed transcript: another grinding nonce")
	}
	return nil
}

func (f *fixedTranscript) opened(root merkle.Digest) ([][]uint64, error) {
	if f.ri >= len(f.rows) {
		panic(errFixed)
	}
	f.ri++
	if root != f.roots[f.ri-1] {
		return nil, errors.New("fixed transcript: rows opened against another root")
	}
	return f.rows[f.ri-1], nil
}

func (f *fixedTranscript) Merkle(root merkle.Digest, _ int, _ []int, _ int) ([][]uint64, error) {
	return f.opened(root)
}

func (f *fixedTranscript) MerklePadded(root merkle.Digest, _ int, _ []int, _, _ int) ([][]uint64, error) {
	return f.opened(root)
}

// recordingTranscript is the real verifier, recording into f what fixedTranscript
// replays.
type recordingTranscript struct {
	*transcript.Verifier
	f *fixedTranscript
}

func (r *recordingTranscript) Sample() field.E {
	x := r.Verifier.Sample()
	r.f.samples = append(r.f.samples, x)
	return x
}

func (r *recordingTranscript) SampleQueries(blockLen, count int) []int {
	q := r.Verifier.SampleQueries(blockLen, count)
	r.f.queries = append(r.f.queries, q)
	return q
}

func (r *recordingTranscript) GrindCheck(bits int) error {
	at := r.Verifier.Offset()
	if err := r.Verifier.GrindCheck(bits); err != nil {
		return err
	}
	r.f.nonces = append(r.f.nonces, r.f.stream[at])
	return nil
}

func (r *recordingTranscript) Merkle(root merkle.Digest, blockLen int, queries []int, leafWords int) ([][]uint64, error) {
	rows, err := r.Verifier.Merkle(root, blockLen, queries, leafWords)
	r.f.roots, r.f.rows = append(r.f.roots, root), append(r.f.rows, rows)
	return rows, err
}

func (r *recordingTranscript) MerklePadded(root merkle.Digest, blockLen int, queries []int, rowWords, leafWords int) ([][]uint64, error) {
	rows, err := r.Verifier.MerklePadded(root, blockLen, queries, rowWords, leafWords)
	r.f.roots, r.f.rows = append(r.f.roots, root), append(r.f.rows, rows)
	return rows, err
}

// realStages runs the child's verifier stages after the statement's absorption (as
// replay does), the two large evaluations taken from v (they depend on challenges and
// the pinned slice values only), and requires the whole stream read.
func realStages(tr open.VerifierTranscript, st flows.Statement, v ChildValues, streamLen func() int, used func() int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	sh, err := aggregate.Flow.Shape(st.N, st.LogInvRate)
	if err != nil {
		return err
	}
	bind, err := aggregate.Bind(st)
	if err != nil {
		return err
	}
	root, err := open.ReceiveRoot(tr)
	if err != nil {
		return err
	}
	zc, err := zerocheck.VerifyWith(tr, sh.M())
	if err != nil {
		return err
	}
	dm := &deferredMatrices{logSize: aggregate.LogSize, constCol: aggregate.ConstCol, va: v.VA, vb: v.VB}
	dp := &deferredPublic{inner: bind.Public, value: v.Key}
	lc, err := lincheck.VerifyPublic(tr, dm, lincheck.ZerocheckClaims(zc), dp)
	if err != nil {
		return err
	}
	ring := ringswitch.Verify(tr, lc.Point, lc.S)
	if err := open.VerifyStacked(tr, root, sh.Commitment(), open.Placement{Variables: sh.Mu, Offset: 0}, ring, nil); err != nil {
		return err
	}
	if used() != streamLen() {
		return fmt.Errorf("%d of %d stream scalars read", used(), streamLen())
	}
	return nil
}

// recordChild runs the real stages on the child's proof and returns what they drew.
func recordChild(t *testing.T, p flows.Proved, v ChildValues, stream []field.E) *fixedTranscript {
	t.Helper()
	bind, err := aggregate.Bind(p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixedTranscript{stream: stream}
	vt := transcript.NewVerifier(p.Proof, []byte(aggregate.FlowLabel), nil)
	vt.AbsorbBytes(bind.Absorb)
	r := &recordingTranscript{Verifier: vt, f: f}
	if err := realStages(r, p.Statement, v, func() int { return len(stream) }, vt.Offset); err != nil {
		t.Fatal(err)
	}
	return f
}

// replayFixed runs the real stages on stream with f's recorded draws.
func replayFixed(f *fixedTranscript, st flows.Statement, v ChildValues, stream []field.E) error {
	g := &fixedTranscript{stream: stream, samples: f.samples, queries: f.queries, roots: f.roots, rows: f.rows, nonces: f.nonces}
	return realStages(g, st, v, func() int { return len(stream) }, func() int { return g.off })
}

// kernelBasis reduces the checks' linear parts (over vars scalars) to row echelon
// form and returns a function that completes free values into a kernel vector.
func kernelBasis(checks []StreamCheck, vars int) (complete func(free func(j int) field.E) []field.E, pivots int) {
	var rows [][]field.E
	for _, c := range checks {
		row := make([]field.E, vars)
		for _, tm := range c.Value.Terms {
			row[tm.J] = row[tm.J].Add(tm.A)
		}
		rows = append(rows, row)
	}
	pivotCol := []int{}
	r := 0
	for col := 0; col < vars && r < len(rows); col++ {
		p := -1
		for i := r; i < len(rows); i++ {
			if !rows[i][col].IsZero() {
				p = i
				break
			}
		}
		if p < 0 {
			continue
		}
		rows[r], rows[p] = rows[p], rows[r]
		inv := rows[r][col].Inv()
		for k := col; k < vars; k++ {
			rows[r][k] = rows[r][k].Mul(inv)
		}
		for i := range rows {
			if i == r || rows[i][col].IsZero() {
				continue
			}
			f := rows[i][col]
			for k := col; k < vars; k++ {
				if !rows[r][k].IsZero() {
					rows[i][k] = rows[i][k].Add(f.Mul(rows[r][k]))
				}
			}
		}
		pivotCol = append(pivotCol, col)
		r++
	}
	isPivot := make([]bool, vars)
	for _, c := range pivotCol {
		isPivot[c] = true
	}
	complete = func(free func(j int) field.E) []field.E {
		d := make([]field.E, vars)
		for j := range d {
			if !isPivot[j] {
				d[j] = free(j)
			}
		}
		for i, c := range pivotCol {
			var s field.E
			for k := range vars {
				if k != c && !rows[i][k].IsZero() && !d[k].IsZero() {
					s = s.Add(rows[i][k].Mul(d[k]))
				}
			}
			d[c] = s // characteristic 2: −s = s
		}
		return d
	}
	return complete, len(pivotCol)
}

func randFieldE(rng *rand.Rand) field.E {
	return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
}

// TestAdversaryChildStreamDifferential: with the child's draws held fixed, streams in
// the kernel of ChildStream's checks (random ones, and ones moving a single free
// scalar) pass the real verifier stages; streams off the kernel (one scalar moved
// alone) are refused by them, so the harness can fail.
func TestAdversaryChildStreamDifferential(t *testing.T) {
	skipProofs(t, "proves a 4-signer child")
	rng := testrand.New(t)
	for _, rate := range []int{1, 2} {
		p, v := childWithValues(t, 4, rate, 4242+uint64(rate))
		rev, stream, err := RevealChild(p.Proof, p.Statement)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ChildStream(p.Statement, rev)
		if err != nil {
			t.Fatal(err)
		}
		if err := checksHold(sc, stream); err != nil {
			t.Fatal(err)
		}
		f := recordChild(t, p, v, stream)
		if err := replayFixed(f, p.Statement, v, stream); err != nil {
			t.Fatalf("rate %d: the honest stream on the fixed draws: %v", rate, err)
		}
		complete, pivots := kernelBasis(sc.Checks, sc.Vars)
		t.Logf("rate %d: %d stream scalars, %d checks of rank %d", rate, sc.Vars, len(sc.Checks), pivots)
		moved := func(d []field.E) []field.E {
			x := append([]field.E(nil), stream...)
			for j := range x {
				x[j] = x[j].Add(d[j])
			}
			return x
		}
		// Random kernel streams: ChildStream's checks hold, so must the real stages.
		for trial := range 3 {
			x := moved(complete(func(int) field.E { return randFieldE(rng) }))
			if err := checksHold(sc, x); err != nil {
				t.Fatalf("rate %d: the kernel stream breaks a check: %v", rate, err)
			}
			if err := replayFixed(f, p.Statement, v, x); err != nil {
				t.Errorf("rate %d, kernel stream %d: ChildStream's checks hold, the real verifier refuses: %v", rate, trial, err)
			}
		}
		// Single free scalars moved (the pivots follow): the same, scalar by scalar.
		step := 1
		off, refused := 0, 0
		for j := 0; j < sc.Vars; j += step {
			d := complete(func(k int) field.E {
				if k == j {
					return randFieldE(rng)
				}
				return field.Zero
			})
			if d[j].IsZero() {
				continue // a pivot: moved with some free scalar
			}
			if err := replayFixed(f, p.Statement, v, moved(d)); err != nil {
				t.Errorf("rate %d: scalar %d moved in the kernel: the real verifier refuses: %v", rate, j, err)
			}
			// Off the kernel: scalar j alone moved breaks a check, and the real
			// stages refuse it (a scalar in no check would be free in both).
			x := append([]field.E(nil), stream...)
			x[j] = x[j].Add(field.One)
			if checksHold(sc, x) == nil {
				continue
			}
			if replayFixed(f, p.Statement, v, x) == nil {
				off++
			} else {
				refused++
			}
		}
		if refused == 0 {
			t.Fatalf("rate %d: no stream off the kernel is refused: the harness cannot fail", rate)
		}
		if off > 0 {
			// A scalar that breaks a ChildStream check yet passes the real stages: a
			// check stricter than the verifier's (a completeness matter, not a
			// forgery): reported, not failed.
			t.Logf("rate %d: %d scalars break a ChildStream check alone but pass the real stages", rate, off)
		}
	}
}

// TestAdversaryInterfaceLengths: the honest merged proof with one list of a child's
// revealed interface one longer, one shorter or empty (and the interface's scalar
// fields changed) is refused by Verify and, through the file, by VerifyMerged, never
// with a panic; the file's encoding of the interfaces reads back as written.
func TestAdversaryInterfaceLengths(t *testing.T) {
	f := fixture(t)
	st := f.m.Statement()
	back, err := ParseMerged(f.m.ProofBytes(), st)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.m.Interfaces {
		if string(back.Interfaces[i].appendBinary(nil)) != string(f.m.Interfaces[i].appendBinary(nil)) {
			t.Fatalf("child %d's interface does not read back", i)
		}
	}
	type edit struct {
		name string
		f    func(ci *ChildInterface)
	}
	var edits []edit
	es := map[string]func(ci *ChildInterface) *[]field.E{
		"challenges": func(ci *ChildInterface) *[]field.E { return &ci.Challenges },
		"slices":     func(ci *ChildInterface) *[]field.E { return &ci.S },
		"enforced":   func(ci *ChildInterface) *[]field.E { return &ci.Enforced },
		"induced":    func(ci *ChildInterface) *[]field.E { return &ci.Induced },
		"nonces":     func(ci *ChildInterface) *[]field.E { return &ci.Nonces },
	}
	for name, get := range es {
		edits = append(edits,
			edit{name + " + 1", func(ci *ChildInterface) { l := get(ci); *l = append(*l, (*l)[0]) }},
			edit{name + " − 1", func(ci *ChildInterface) { l := get(ci); *l = (*l)[:len(*l)-1] }},
			edit{name + " empty", func(ci *ChildInterface) { *get(ci) = nil }})
	}
	ws := map[string]func(ci *ChildInterface) *[][4]uint64{
		"boundaries": func(ci *ChildInterface) *[][4]uint64 { return &ci.Boundaries },
		"grinds":     func(ci *ChildInterface) *[][4]uint64 { return &ci.Grinds },
	}
	for name, get := range ws {
		edits = append(edits,
			edit{name + " + 1", func(ci *ChildInterface) { l := get(ci); *l = append(*l, (*l)[len(*l)-1]) }},
			edit{name + " − 1", func(ci *ChildInterface) { l := get(ci); *l = (*l)[:len(*l)-1] }},
			edit{name + " empty", func(ci *ChildInterface) { *get(ci) = nil }})
	}
	edits = append(edits,
		edit{"roots + 1", func(ci *ChildInterface) { ci.Roots = append(ci.Roots, ci.Roots[0]) }},
		edit{"roots − 1", func(ci *ChildInterface) { ci.Roots = ci.Roots[:len(ci.Roots)-1] }},
		edit{"roots empty", func(ci *ChildInterface) { ci.Roots = nil }},
		edit{"everything empty", func(ci *ChildInterface) { *ci = ChildInterface{} }},
		edit{"the other child's interface", nil},
	)
	for c := range f.m.Interfaces {
		for _, e := range edits {
			m := copyMerged(f.m)
			if e.f == nil {
				m.Interfaces[c] = m.Interfaces[1-c]
			} else {
				e.f(&m.Interfaces[c])
			}
			err := noPanic(m.Verify)
			if err == nil {
				t.Errorf("child %d, %s: verified", c, e.name)
			} else if !errors.Is(err, ErrMerged) {
				t.Errorf("child %d, %s: %v", c, e.name, err)
			}
			if err := noPanic(func() error { return VerifyMerged(m.ProofBytes(), st) }); err == nil || !errors.Is(err, ErrMerged) {
				t.Errorf("child %d, %s, through the file: %v", c, e.name, err)
			}
		}
	}
	// List lengths in the file past what the bytes hold, at every list of the first
	// interface: refused as truncated, without allocating them.
	file := f.m.ProofBytes()
	iface := f.m.Interfaces[0].appendBinary(nil)
	for at := 0; at+8 <= len(iface); at += 8 {
		b := append([]byte(nil), file...)
		for k := range 8 {
			b[mergeHeader+at+k] = 0xff
		}
		b[mergeHeader+at+7] = 0x7f
		if err := noPanic(func() error { return VerifyMerged(b, st) }); err == nil {
			t.Fatalf("interface word %d set to 2^63−1: verified", at/8)
		}
	}
}

// TestAdversaryStatementBytes: merged statements that differ in one field (or that
// move a key or a list boundary between fields) absorb different bytes.
func TestAdversaryStatementBytes(t *testing.T) {
	f := fixture(t)
	base := f.m
	seen := map[string]string{string(base.statementBytes()): "the honest statement"}
	add := func(name string, edit func(m *Merged)) {
		m := copyMerged(base)
		edit(m)
		b := string(m.statementBytes())
		if prev, ok := seen[b]; ok {
			t.Errorf("%s absorbs the bytes of %s", name, prev)
		}
		seen[b] = name
	}
	add("a key dropped, moved to child 0's count", func(m *Merged) { m.Keys = m.Keys[:7]; m.Children[1].N-- })
	add("children's sizes 3 and 5", func(m *Merged) { m.Children[0].N, m.Children[1].N = 3, 5 })
	add("another epoch", func(m *Merged) { m.Epoch++ })
	add("another message", func(m *Merged) { m.Message[0] ^= 1 })
	add("another merge rate", func(m *Merged) { m.LogInvRate++ })
	add("another child rate", func(m *Merged) { m.Children[1].LogInvRate++ })
	add("a challenge moved to the slices", func(m *Merged) {
		ci := &m.Interfaces[0]
		ci.S = append([]field.E{ci.Challenges[len(ci.Challenges)-1]}, ci.S...)
		ci.Challenges = ci.Challenges[:len(ci.Challenges)-1]
	})
	add("an enforced sum moved to the induced weights", func(m *Merged) {
		ci := &m.Interfaces[0]
		ci.Induced = append([]field.E{ci.Enforced[len(ci.Enforced)-1]}, ci.Induced...)
		ci.Enforced = ci.Enforced[:len(ci.Enforced)-1]
	})
	add("a grinding value moved to the boundaries", func(m *Merged) {
		ci := &m.Interfaces[0]
		ci.Boundaries = append(ci.Boundaries, ci.Grinds[0])
		ci.Grinds = ci.Grinds[1:]
	})
	add("a boundary moved to child 1", func(m *Merged) {
		b := m.Interfaces[0].Boundaries
		m.Interfaces[0].Boundaries = b[:len(b)-1]
		m.Interfaces[1].Challenges = append([]field.E(nil), m.Interfaces[1].Challenges...)
		m.Interfaces[1].Boundaries = append([][4]uint64{b[len(b)-1]}, m.Interfaces[1].Boundaries...)
	})
	add("the interfaces swapped", func(m *Merged) { m.Interfaces[0], m.Interfaces[1] = m.Interfaces[1], m.Interfaces[0] })
}

// TestAdversaryLevel0ZeroPrefix: the real verifier opens level-0 rows with
// transcript.Verifier.MerklePadded, which refuses a leaf whose leading 64 − Lanes
// words (the absent lane blocks) are not zero; a level-0 query block hashes all 64
// words and has no such check. That is sound only while every child's commitment
// has all 64 lanes (and a level-0 leaf is one fold of 2^6 words, a later one 8 E
// elements): this test pins those facts for every child size and rate, so that a
// change of the child's shape that would open the gap fails here.
func TestAdversaryLevel0ZeroPrefix(t *testing.T) {
	for n := 1; n <= aggregate.MaxSigners; n = max(n+1, n*9/8) {
		for rate := 1; rate <= 4; rate++ {
			sh, err := aggregate.Flow.Shape(n, rate)
			if err != nil {
				t.Fatalf("%d signers at rate %d: %v", n, rate, err)
			}
			c := sh.Commitment()
			cfg, err := open.DeriveConfig(sh.StackLog, sh.LogInvRate)
			if err != nil {
				t.Fatal(err)
			}
			if c.Lanes != RowWords || 1<<cfg.Folds[0] != RowWords {
				t.Fatalf("%d signers at rate %d: %d lanes, level-0 leaves of 2^%d words: a level-0 query block (rows of %d words, no zero-prefix check) does not match MerklePadded",
					n, rate, c.Lanes, cfg.Folds[0], RowWords)
			}
			for l := 1; l < cfg.Levels(); l++ {
				if 3<<cfg.Folds[l] != LaterRowWords {
					t.Fatalf("%d signers at rate %d, level %d: %d folds, later query blocks read %d words", n, rate, l, cfg.Folds[l], LaterRowWords)
				}
			}
		}
	}
}

// TestAdversaryPinRuns: the verifier's pins of transcript runs from a schedule of 40
// steps (three runs, the first two ending on a squeeze, the last with 8 padding steps):
// boundaries one short or long, a challenge past the revealed ones and a squeezing
// run's end boundary other than its challenge are refused; the end boundary's fourth
// word (not part of the challenge) is pinned as given, as are the tags, and the
// padding steps carry tag 0 and no squeeze.
func TestAdversaryPinRuns(t *testing.T) {
	sc := &StreamChecks{}
	ch := 0
	for i := range 40 {
		switch {
		case i%16 == 15 || i == 20:
			sc.Steps = append(sc.Steps, StreamStep{Kind: StepSqueeze, Tag: tagSqueeze, Challenge: ch})
			ch++
		case i%3 == 0:
			sc.Steps = append(sc.Steps, StreamStep{Kind: StepPublic, Tag: tagByte, Data: [3]uint64{uint64(i), 0, 0}})
		default:
			sc.Steps = append(sc.Steps, StreamStep{Kind: StepScalar, Tag: tagScalar, Var: sc.Vars})
			sc.Vars++
		}
	}
	challenges := []field.E{{C0: 11, C1: 12, C2: 13}, {C0: 21, C1: 22, C2: 23}, {C0: 31, C1: 32, C2: 33}}
	bounds := func() [][4]uint64 {
		return [][4]uint64{{1, 2, 3, 4}, {11, 12, 13, 99}, {31, 32, 33, 77}, {5, 6, 7, 8}}
	}
	// The second run's last step squeezes challenge 2 (step 31), the first run's
	// challenge 0 (step 15), step 20 challenge 1.
	runs, err := sc.PinRuns(challenges, bounds())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[2].Steps != 8 {
		t.Fatalf("%d runs, the last of %d steps", len(runs), runs[len(runs)-1].Steps)
	}
	b := bounds()
	for r := range runs {
		if runs[r].CV != b[r] || runs[r].Outs[TranscriptSteps-1] != b[r+1] {
			t.Fatalf("run %d: starts at %v, ends at %v", r, runs[r].CV, runs[r].Outs[TranscriptSteps-1])
		}
	}
	if !runs[1].Squeeze[4] || runs[1].Outs[4] != [4]uint64{21, 22, 23, 0} {
		t.Fatalf("step 20: squeeze %v, output %v", runs[1].Squeeze[4], runs[1].Outs[4])
	}
	for s := 8; s < TranscriptSteps; s++ {
		if runs[2].Blocks[s][3] != 0 || runs[2].Squeeze[s] {
			t.Fatalf("padding step %d: tag %d, squeeze %v", s, runs[2].Blocks[s][3], runs[2].Squeeze[s])
		}
	}
	for i, st := range sc.Steps {
		if runs[i/TranscriptSteps].Blocks[i%TranscriptSteps][3] != st.Tag {
			t.Fatalf("step %d: tag not pinned", i)
		}
	}
	for name, c := range map[string]struct {
		ch []field.E
		b  [][4]uint64
	}{
		"a boundary short":     {challenges, bounds()[:3]},
		"a boundary more":      {challenges, append(bounds(), [4]uint64{})},
		"a challenge short":    {challenges[:2], bounds()},
		"run 0 ends elsewhere": {challenges, func() [][4]uint64 { b := bounds(); b[1][0] ^= 1; return b }()},
		"run 1 ends elsewhere": {challenges, func() [][4]uint64 { b := bounds(); b[2][2] ^= 1 << 63; return b }()},
		"no boundaries at all": {challenges, nil},
		"no challenges at all": {nil, bounds()},
	} {
		if _, err := sc.PinRuns(c.ch, c.b); err == nil {
			t.Errorf("%s: pinned", name)
		}
	}
}

// TestAdversaryGrindElsewhere: a prover whose grinding block proves a valid proof of
// work for the child's true nonce, but from another chaining value (found by search:
// the nonce clears the bits there too), and reveals that chaining value. The grinding
// block and its pins are satisfied; the claims tying the value to the transcript
// block's output before the nonce step (GrindClaims) refuse it.
func TestAdversaryGrindElsewhere(t *testing.T) {
	f := fixture(t)
	children := mergeChildren(f.leaves)
	mask := uint64(1)<<open.QueryGrindingBits - 1
	pow := func(cv [4]uint64, n [4]uint64) bool {
		base := transcript.Compress(cv, squeezeBlockTag(grindBaseTag))
		return transcript.Compress(base, [4]uint64{n[0], n[1], n[2], grindNonceTag})[0]&mask == 0
	}
	for _, g := range []int{0, 2} {
		lied := false
		hook := func(i int, x *childExtract) {
			if i != 1 {
				return
			}
			base, nonce := x.grind[2*g], x.grind[2*g+1]
			if !pow(base.In, nonce.Block) {
				t.Fatalf("grinding check %d: the honest pair fails this test's proof-of-work rule", g)
			}
			cv := base.In
			for k := uint64(1); ; k++ {
				cv[3] = base.In[3] ^ k
				if pow(cv, nonce.Block) {
					break
				}
			}
			x.grind = append([]transcript.Step(nil), x.grind...)
			b := &x.grind[2*g]
			b.In = cv
			b.Out = transcript.Compress(cv, b.Block)
			nb := &x.grind[2*g+1]
			nb.In = b.Out
			nb.Out = transcript.Compress(nb.In, nb.Block)
			lied = true
		}
		m, err := mergeWith(children, 2, par.New(nil, 2), &mergeHooks{child: hook})
		if !lied {
			t.Fatal("the hook did not run")
		}
		if err != nil {
			t.Fatalf("grinding check %d elsewhere: no proof made (%v)", g, err)
		}
		err = m.Verify()
		if err == nil {
			t.Fatalf("grinding check %d from another chaining value: verified", g)
		}
		t.Logf("grinding check %d from another chaining value: %v", g, err)
	}
}

// squeezeBlockTag is the block of zeros with tag tag.
func squeezeBlockTag(tag uint64) [4]uint64 { return [4]uint64{0, 0, 0, tag} }

// TestAdversaryFileTail: a merged proof file with bytes appended, or with its
// interfaces' length field moved by a word (the interfaces then end inside the
// proof, or the proof starts inside them), is refused.
func TestAdversaryFileTail(t *testing.T) {
	f := fixture(t)
	st := f.m.Statement()
	file := f.m.ProofBytes()
	for _, tail := range [][]byte{{0}, {1}, make([]byte, 24)} {
		if err := noPanic(func() error { return VerifyMerged(append(append([]byte(nil), file...), tail...), st) }); err == nil {
			t.Errorf("%d bytes appended: verified", len(tail))
		}
	}
	for _, d := range []int{-8, 8, -24, 24} {
		b := append([]byte(nil), file...)
		n := int(uint64(b[16]) | uint64(b[17])<<8 | uint64(b[18])<<16 | uint64(b[19])<<24)
		n += d
		for k := range 4 {
			b[16+k] = byte(n >> (8 * k))
		}
		if err := noPanic(func() error { return VerifyMerged(b, st) }); err == nil {
			t.Errorf("interface length moved by %d: verified", d)
		}
	}
}
