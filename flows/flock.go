package flows

import (
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/ntt"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/ringswitch"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// FlockSpec describes a Boolean R1CS batch flow: one circuit proved for N instances
// with Flock (commit the packed witness, zerocheck with the univariate skip, lincheck,
// ring switching, stacked WHIR opening). Only the circuit, the inputs and the witness
// writer differ between such flows; the stages are shared.
type FlockSpec struct {
	Name, Label, Summary string
	// Circuit is the block proved per instance (2^LogSize columns, 13 ≤ LogSize ≤ 24).
	Circuit *circuit.Circuit
	// A large circuit may instead be built on first use: LazyCircuit is called once,
	// when a proof or a verification first needs it, and must return a circuit of
	// 2^LogSize columns (Circuit nil, LogSize set).
	LazyCircuit func() *circuit.Circuit
	// Matrices, when set with LazyCircuit, is how a verification evaluates the
	// circuit's fixed matrices while the circuit is not built in this process
	// (e.g. a circuit.Described, which builds nothing): it must give the circuit's
	// values exactly. Once the circuit is built, verifications walk it instead.
	Matrices func() lincheck.Matrices
	LogSize  int
	// MaxN is the most instances per proof (at most 2^(34−LogSize) so that the
	// stack stays within the WHIR ladder).
	MaxN int
	// InputBytes is the memory one instance's input holds (for Estimate).
	InputBytes int
	// FixedBytes is memory a proof holds whatever N is, beyond the stack-sized
	// buffers Estimate counts (a large circuit, its witness filler's buffers).
	FixedBytes int64
	// Generate, Decode, FromValue and FileN are the Flow's input methods.
	Generate  func(n int, seed uint64) (Input, error)
	Decode    func(data []byte) (Input, error)
	FromValue func(v any) (Input, error)
	FileN     func(size int64) (int, error)
	// Fill writes the packed witness w of 2^nLog instance slots (slot s < in.Len()
	// holds instance s, every later slot one fixed padding instance) and the packed
	// A0·w and B0·w, in the circuit package's row packing. The bytes written must
	// not depend on the workers. A0·w and B0·w are read only through slot
	// in.Len() (the zerocheck's Live: the first padding slot stands for the
	// rest), so Fill may leave their later slots unwritten.
	Fill func(w graph.Workers, in Input, nLog int, wit, a, b []field.K) error
	// Bind, when set, is how a statement's public data (Statement.Data) enters the
	// proof: bytes the transcript absorbs right after the label, and a public-input
	// lincheck term pinning columns of every block to the statement's bits. It
	// returns an ErrInput error for data it does not accept. Without it the flow
	// takes no statement data and its transcript is the reference's.
	Bind func(st Statement) (Binding, error)
	// Describe, when set, says what a verifier checked for st (DescribeStatement).
	Describe func(st Statement) string
	// ParallelPlan grants the plan stage as many workers as the scheduler has (one
	// otherwise), for a flow whose inputs write their statement on workers
	// (StatedOn).
	ParallelPlan bool
	// RepeatPadding writes the opening's level-0 rows in the repeated-lanes wire
	// form (Shape.Wire): the lane blocks that hold only padding slots, identical by
	// Fill's contract, are sent once per row. Off for the reference's flows.
	RepeatPadding bool
}

// Binding is what a statement adds to a Flock proof (FlockSpec.Bind).
type Binding struct {
	// Absorb is absorbed by the transcript after the label, before the commitment.
	Absorb []byte
	// Public is the public-input term (nil: none). The witness must hold its bits
	// in every slot, padding slots included.
	Public lincheck.Public
}

// StatedOn is a Stated input that can write its statement's data on workers;
// StatementOn returns the same bytes as Statement. The plan stage prefers it.
type StatedOn interface {
	Stated
	StatementOn(w graph.Workers) json.RawMessage
}

// Bound is an Input that gives the binding of its own statement: Binding returns
// what the flow's Bind returns for StatementOf(the input), without decoding the
// statement's data again. The plan stage takes it instead of calling Bind; a
// verifier always calls Bind, so a Binding that differs gives proofs that fail
// verification (a flow's tests compare the two).
type Bound interface {
	Binding() (Binding, error)
}

// statement returns the statement of proving in at logInvRate and its binding,
// through the input's StatementOn and Binding when it has them.
func (f *Flock) statement(w graph.Workers, in Input, logInvRate int) (Statement, Binding, error) {
	var st Statement
	if s, ok := in.(StatedOn); ok {
		st = Statement{Flow: f.Name(), N: in.Len(), LogInvRate: logInvRate, Data: s.StatementOn(w)}
		if err := w.Err(); err != nil { // stopped workers skip chunks: the data is incomplete
			return Statement{}, Binding{}, err
		}
	} else {
		st = StatementOf(f, in, logInvRate)
	}
	if b, ok := in.(Bound); ok && f.spec.Bind != nil {
		bind, err := b.Binding()
		return st, bind, err
	}
	bind, err := f.bind(st)
	return st, bind, err
}

// bind returns the statement's binding (the zero Binding for a flow without Bind,
// which then refuses statement data).
func (f *Flock) bind(st Statement) (Binding, error) {
	if f.spec.Bind == nil {
		if len(st.Data) != 0 {
			return Binding{}, fmt.Errorf("%w: %s has no statement data", ErrInput, f.spec.Name)
		}
		return Binding{}, nil
	}
	return f.spec.Bind(st)
}

// CheckStatement reports whether st's data is a statement the flow accepts (no
// data for a flow without Bind).
func (f *Flock) CheckStatement(st Statement) error {
	_, err := f.bind(st)
	return err
}

// newProverTranscript starts a proof's transcript: the label, then the binding's bytes.
func (f *Flock) newProverTranscript(b Binding) *transcript.Prover {
	tr := transcript.NewProver([]byte(f.spec.Label), nil)
	if b.Absorb != nil {
		tr.AbsorbBytes(b.Absorb)
	}
	return tr
}

// minLogInstance is the smallest circuit the zerocheck takes: its univariate skip
// (KSkip = 6 variables) and a round-1 group of 2^7 words.
const minLogInstance = zerocheck.KSkip + 7

// Flock is a Flow built from a FlockSpec.
type Flock struct {
	spec    FlockSpec
	circuit func() *circuit.Circuit
	built   atomic.Bool // the lazy circuit is built
}

var _ Flow = (*Flock)(nil)

// NewFlock checks spec and returns its flow.
func NewFlock(spec FlockSpec) *Flock {
	f := &Flock{spec: spec}
	switch {
	case spec.Circuit != nil:
		spec.LogSize = spec.Circuit.LogSize()
		f.circuit = func() *circuit.Circuit { return spec.Circuit }
	case spec.LazyCircuit != nil:
		f.circuit = sync.OnceValue(func() *circuit.Circuit {
			c := spec.LazyCircuit()
			if c.LogSize() != spec.LogSize {
				panic(fmt.Sprintf("flows: FlockSpec %s: lazy circuit of 2^%d columns, declared 2^%d", spec.Name, c.LogSize(), spec.LogSize))
			}
			f.built.Store(true)
			return c
		})
	default:
		panic("flows: FlockSpec without a circuit")
	}
	switch {
	case spec.LogSize < minLogInstance || spec.LogSize > 24:
		panic(fmt.Sprintf("flows: FlockSpec circuit of 2^%d columns", spec.LogSize))
	case spec.Fill == nil || spec.Generate == nil || spec.Decode == nil || spec.FromValue == nil || spec.FileN == nil:
		panic("flows: FlockSpec " + spec.Name + " lacks an input or witness function")
	case spec.MaxN < 1 || spec.MaxN > 1<<(28+commit.LaneLog-spec.LogSize):
		panic(fmt.Sprintf("flows: FlockSpec %s: MaxN %d", spec.Name, spec.MaxN))
	}
	f.spec = spec
	return f
}

// Name, Label, Summary and MaxN describe the flow.
func (f *Flock) Name() string              { return f.spec.Name }
func (f *Flock) Label() string             { return f.spec.Label }
func (f *Flock) Summary() string           { return f.spec.Summary }
func (f *Flock) MaxN() int                 { return f.spec.MaxN }
func (f *Flock) Circuit() *circuit.Circuit { return f.circuit() }

// Generate returns n generated instances.
func (f *Flock) Generate(n int, seed uint64) (Input, error) {
	if err := f.Check(n, 1); err != nil {
		return nil, err
	}
	return f.spec.Generate(n, seed)
}

// Decode reads an input file.
func (f *Flock) Decode(data []byte) (Input, error) { return f.spec.Decode(data) }

// FromValue accepts a Go value.
func (f *Flock) FromValue(v any) (Input, error) { return f.spec.FromValue(v) }

// FileN sizes an input file.
func (f *Flock) FileN(size int64) (int, error) { return f.spec.FileN(size) }

// Check validates n and the rate.
func (f *Flock) Check(n, logInvRate int) error {
	_, err := f.Shape(n, logInvRate)
	return err
}

// Shape is the geometry of a Flock batch of N instances.
type Shape struct {
	N           int // instances proved (live slots)
	NLog        int // log2 of the slot count, max(3, ⌈log2 N⌉)
	LogInstance int // log2 of the circuit's block size
	Mu          int // variables of the committed column, LogInstance + NLog − 6
	StackLog    int // log2 of the committed stack, max(15, Mu)
	LogInvRate  int // level-0 log inverse rate
	// Lanes is the number of level-0 lane blocks (of 2^(StackLog-6) words) the
	// column fills: 64 when Mu ≥ 15, else 2^(Mu-9). The zero lanes past them are
	// not encoded; they lead every leaf image as zeros and are left out of the
	// wire rows, as the reference commits a short stack.
	Lanes int
}

// M is the number of zerocheck variables, LogInstance + NLog.
func (s Shape) M() int { return s.LogInstance + s.NLog }

// Commitment is the shape of the column's level-0 commitment.
func (s Shape) Commitment() commit.Shape {
	return commit.Shape{StackLog: s.StackLog, LogInvRate: s.LogInvRate, Lanes: s.Lanes}
}

// Words is the packed witness length, 2^Mu K words.
func (s Shape) Words() int { return 1 << s.Mu }

// SlotLog is log2 of the slots n blocks are padded to in a segment (or instances in
// a batch): max(3, ⌈log2 n⌉).
func SlotLog(n int) int {
	if n <= 8 {
		return 3
	}
	return bits.Len(uint(n - 1))
}

// Shape returns the shape of a batch of n instances at the given rate.
func (f *Flock) Shape(n, logInvRate int) (Shape, error) {
	if n < 1 || n > f.spec.MaxN {
		return Shape{}, fmt.Errorf("%w: %s: %d instances (want 1..%d)", ErrInput, f.spec.Name, n, f.spec.MaxN)
	}
	if logInvRate < commit.MinLogInvRate || logInvRate > commit.MaxLogInvRate {
		return Shape{}, fmt.Errorf("%w: %s: log inverse rate %d (want %d..%d)", ErrInput, f.spec.Name, logInvRate, commit.MinLogInvRate, commit.MaxLogInvRate)
	}
	logInst := f.spec.LogSize
	nLog := SlotLog(n)
	mu := logInst + nLog - commit.LaneLog
	stackLog := max(commit.MinStackLog, mu)
	return Shape{N: n, NLog: nLog, LogInstance: logInst, Mu: mu, StackLog: stackLog, LogInvRate: logInvRate,
		Lanes: 1 << (mu - (stackLog - commit.LaneLog))}, nil
}

// Estimate is the memory a proof of n instances is budgeted for, in bytes: eleven
// K vectors of the committed stack's length 2^StackLog (the stack; the work buffer,
// one E vector holding A·w and B·w and then the ring weight, three; the zerocheck's
// tables, four and a half; the opening's first folds, one and a half; the rest
// for smaller tables and the garbage the collector has not yet returned), two and
// a half times the codeword's length 2^(StackLog+LogInvRate) (the codeword, its
// Merkle tree and, where they do not fit in the consumed ring weight, the deeper
// WHIR levels' codewords), the inputs, and 16 MiB of fixed work space. A test measures it against
// the peak RSS of one proof per process (2^10..2^16 instances at rate 1,
// 2^10..2^13 at rate 4): it is at least that peak and at most 1.5 × it + 64 MiB.
// A flow's FixedBytes is added. An invalid (n, rate) estimates 0.
func (f *Flock) Estimate(n, logInvRate int) int64 {
	sh, err := f.Shape(n, logInvRate)
	if err != nil {
		return 0
	}
	const k = 8 // bytes of a K
	stack := int64(k) << sh.StackLog
	codeword := int64(k) << (sh.StackLog + sh.LogInvRate)
	inputs := int64(sh.N) * int64(f.spec.InputBytes)
	return 11*stack + codeword*5/2 + inputs + f.spec.FixedBytes + 16<<20
}

// Verify checks a proof of st and returns its raw form.
func (f *Flock) Verify(proof *transcript.Proof, st Statement) (raw *transcript.Proof, err error) {
	if proof == nil {
		return nil, fmt.Errorf("%w: %s: nil proof", ErrInput, f.spec.Name)
	}
	// Verify never panics: a panic below is a bug in a verifier's handling of
	// hostile input, reported as a rejection rather than taking the caller down.
	defer func() {
		if r := recover(); r != nil {
			raw, err = nil, fmt.Errorf("%w: %s: the verifier panicked on this proof (a bug): %v", ErrInput, f.spec.Name, r)
		}
	}()
	if st.Flow != "" && st.Flow != f.spec.Name {
		return nil, fmt.Errorf("%w: statement of flow %q given to %q", ErrInput, st.Flow, f.spec.Name)
	}
	sh, err := f.Shape(st.N, st.LogInvRate)
	if err != nil {
		return nil, err
	}
	bind, err := f.bind(st)
	if err != nil {
		return nil, err
	}
	c := f.verifierMatrices()
	tr := transcript.NewVerifier(proof, []byte(f.spec.Label), nil)
	if bind.Absorb != nil {
		tr.AbsorbBytes(bind.Absorb)
	}
	root, err := open.ReceiveRoot(tr)
	if err != nil {
		return nil, err
	}
	zc, err := zerocheck.Verify(tr, sh.M())
	if err != nil {
		return nil, err
	}
	lc, err := lincheck.VerifyPublic(tr, c, lincheck.ZerocheckClaims(zc), bind.Public)
	if err != nil {
		return nil, err
	}
	ring := ringswitch.Verify(tr, lc.Point, lc.S)
	if err := open.VerifyStackedWire(tr, root, sh.Commitment(), open.Placement{Variables: sh.Mu, Offset: 0}, ring, nil, f.wire(sh)); err != nil {
		return nil, err
	}
	if err := tr.Finish(); err != nil {
		return nil, err
	}
	return tr.RawProof(), nil
}

// verifierMatrices returns what a verification evaluates the circuit's matrices
// with: the spec's Matrices while a lazy circuit is not built, the circuit otherwise.
func (f *Flock) verifierMatrices() lincheck.Matrices {
	if f.spec.Matrices != nil && f.spec.LazyCircuit != nil && !f.built.Load() {
		m := f.spec.Matrices()
		if m.LogSize() != f.spec.LogSize {
			panic(fmt.Sprintf("flows: FlockSpec %s: matrices of 2^%d columns, declared 2^%d", f.spec.Name, m.LogSize(), f.spec.LogSize))
		}
		return m
	}
	return f.circuit()
}

// Resources are what a flow's stages draw on across proofs: the shape cache, the
// buffer pools and the stages' reusable scratch. An Engine holds one; the direct
// path makes a fresh one per call. Safe for concurrent proofs.
type Resources struct {
	Cache *graph.ShapeCache // nil: shape-keyed values are built on every use
	K     *buffers.Pool[field.K]
	E     *buffers.Pool[field.E]

	zc   buffers.Shelf[zerocheck.Buffers]
	whir buffers.Shelf[open.Scratch]
	lin  buffers.Shelf[lincheck.Scratch]
	ring buffers.Shelf[ringswitch.Scratch]
	coms buffers.Shelf[commit.Committed]
}

// NewResources returns resources whose pools keep buffers for inFlight proofs at once.
func NewResources(cache *graph.ShapeCache, inFlight int) *Resources {
	inFlight = max(inFlight, 1)
	return &Resources{
		Cache: cache,
		// Per proof in flight: the stack, and the work buffer (A·w and B·w, then
		// the ring weight).
		K: buffers.NewPool[field.K](inFlight),
		E: buffers.NewPool[field.E](inFlight),
	}
}

// plans returns the NTT plans from the shape cache, recording hits and misses on
// the span of the stage running under ctx.
func (r *Resources) plans(ctx context.Context) commit.PlanSource {
	return func(logD int) *ntt.Plan {
		p, _ := graph.Shape(ctx, r.Cache, fmt.Sprintf("ntt/%d", logD), int64(8*(logD*logD+2<<(logD/2))), func() (*ntt.Plan, error) {
			return ntt.NewPlan(logD), nil
		})
		return p
	}
}

// The typed edges of a Flock flow. Each carries the proof's buffers forward;
// ownership moves with the value, and the last stage (or Release, after a failed run)
// returns them to the pools. A custom stage inserted between two stages takes and
// returns the same edge type, reading it through the accessors.
type (
	Planned struct {
		flow  *Flock
		sh    Shape
		st    Statement
		bind  Binding
		input Input
		whir  *open.Config
		stack *buffers.Buf[field.K] // the packed witness: the committed lane blocks
		// work holds A·w and B·w (packed like w, in its first 2·2^Mu words: a and
		// b) until the zerocheck, their last reader, is done; then the ring switch
		// writes the ring weight over the column into it, which the opening
		// consumes. Their lives do not overlap, so they share the memory.
		work *buffers.Buf[field.E]
		a, b []field.K // views of work; nil once the zerocheck is done
	}
	Witnessed struct{ *Planned }
	Committed struct {
		*Planned
		com *commit.Committed
		tr  *transcript.Prover
	}
	Zerochecked struct {
		*Committed
		claims zerocheck.Result
	}
	Linchecked struct {
		*Committed
		claim lincheck.Claim
		lin   *lincheck.Scratch // holds claim's point and slices until the ring switch
	}
	RingSwitched struct {
		*Committed
		ring ringswitch.Claim
	}
)

// release returns every buffer still held (safe to call twice).
func (p *Planned) release() {
	if p.stack != nil {
		p.stack.Release()
		p.stack = nil
	}
	p.a, p.b = nil, nil
	if p.work != nil {
		p.work.Release()
		p.work = nil
	}
}

// SizeBytes reports the buffers carried, for spans.
func (p *Planned) SizeBytes() int64 {
	var t int64
	if p.stack != nil {
		t += p.stack.SizeBytes()
	}
	if p.work != nil {
		t += p.work.SizeBytes()
	}
	return t
}

// Shape is the batch's geometry.
func (p *Planned) Shape() Shape { return p.sh }

// Witness is the packed witness (2^Mu K words), valid until the edge's buffers are
// released.
func (p *Planned) Witness() []field.K { return p.stack.Data()[:p.sh.Words()] }

// Root is the commitment root sent first on the transcript.
func (c Committed) Root() merkle.Digest { return c.com.Root() }

// Claims are the zerocheck's output claims.
func (z Zerochecked) Claims() zerocheck.Result { return z.claims }

// Claim is the lincheck's output: the point and the 64 slice values (views into the
// lincheck's scratch, valid until the RingSwitch stage has run).
func (l Linchecked) Claim() lincheck.Claim { return l.claim }

// Ring is the ring switch's claim, which the opening discharges.
func (r RingSwitched) Ring() ringswitch.Claim { return r.ring }

// FlockStages are a Flock flow's stages bound to one set of Resources, in protocol
// order. Chain them (Prover does), or wire them with graph.Then with stages of your
// own in between, and run the graph with an Engine's Scheduler; after a failed run,
// call Release on its Result.
type FlockStages struct {
	Plan       graph.Stage[Request, *Planned]
	Witness    graph.Stage[*Planned, Witnessed]
	Commit     graph.Stage[Witnessed, Committed]
	Zerocheck  graph.Stage[Committed, Zerochecked]
	Lincheck   graph.Stage[Zerochecked, Linchecked]
	RingSwitch graph.Stage[Linchecked, RingSwitched]
	Open       graph.Stage[RingSwitched, Proved]
}

// Stages returns the flow's stages bound to res: the plan is the flow's own; every
// other stage is its stage package's node (NewStage) lifted onto the flow's edges,
// which hand each stage its buffers and take back what it returns.
func (f *Flock) Stages(res *Resources) FlockStages {
	s := flockStages{f: f, r: res}
	return FlockStages{
		Plan:       graph.Stage[Request, *Planned]{Name: "plan", MaxWorkers: f.planWorkers(), Run: s.plan},
		Witness:    graph.Lift(witness.NewStage(), s.witnessJob, s.witnessed),
		Commit:     graph.Lift(commit.NewStage(), s.commitJob, s.committed),
		Zerocheck:  graph.Lift(zerocheck.NewStage(), s.zerocheckJob, s.zerochecked),
		Lincheck:   graph.Lift(lincheck.NewStage(), s.lincheckJob, s.linchecked),
		RingSwitch: graph.Lift(ringswitch.NewStage(), s.ringJob, s.ringSwitched),
		Open:       graph.Lift(open.NewStage(), s.openJob, s.opened),
	}
}

// planWorkers is the plan stage's MaxWorkers: all (0) with ParallelPlan, else one.
func (f *Flock) planWorkers() int {
	if f.spec.ParallelPlan {
		return 0
	}
	return 1
}

// Prover is the flow's stage sequence bound to res.
func (f *Flock) Prover(res *Resources) graph.Chain[Request, Proved] {
	st := f.Stages(res)
	c1 := graph.Append(graph.Append(graph.Begin(st.Plan), st.Witness), st.Commit)
	c2 := graph.Append(graph.Append(graph.Append(c1, st.Zerocheck), st.Lincheck), st.RingSwitch)
	return graph.Append(c2, st.Open)
}

type flockStages struct {
	f *Flock
	r *Resources
}

// plan checks the request, fetches the shape's WHIR configuration from the cache,
// makes the statement and its binding (statement) and takes the proof's buffers
// from the pools.
func (s flockStages) plan(ctx context.Context, w graph.Workers, req Request) (*Planned, error) {
	req = req.withDefaults()
	if req.Flow != Flow(s.f) {
		return nil, fmt.Errorf("%w: request for flow %q given to %q", ErrInput, req.Flow.Name(), s.f.Name())
	}
	if req.Input == nil {
		return nil, fmt.Errorf("%w: %s: no input", ErrInput, s.f.Name())
	}
	sh, err := s.f.Shape(req.Input.Len(), req.LogInvRate)
	if err != nil {
		return nil, err
	}
	cfg, err := graph.Shape(ctx, s.r.Cache, fmt.Sprintf("whir/%d/%d", sh.StackLog, sh.LogInvRate), 1<<10, func() (*open.Config, error) {
		return open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	})
	if err != nil {
		return nil, err
	}
	st, bind, err := s.f.statement(w, req.Input, req.LogInvRate)
	if err != nil {
		return nil, err
	}
	p := &Planned{flow: s.f, sh: sh, st: st, bind: bind, input: req.Input, whir: cfg}
	// The committed stack is the column's lane blocks: a short stack's zero lanes are
	// never encoded, so only the packed witness itself is held (the witness stage
	// overwrites it all).
	// A cold pool allocates (and the runtime zeroes) each buffer: the context is
	// checked between them, so a cancelled proof does not wait for both.
	words := sh.Words()
	for _, get := range []func(){
		func() { p.stack = s.r.K.Get(words) },
		func() {
			// One E per word holds three K vectors of the column's length: A·w and
			// B·w now, the ring weight after the zerocheck.
			p.work = s.r.E.Get(words)
			ab := buffers.View[field.K](p.work)
			p.a, p.b = ab[:words:words], ab[words:2*words:2*words]
		},
	} {
		if err := ctx.Err(); err != nil {
			p.release()
			return nil, context.Cause(ctx)
		}
		get()
	}
	return p, nil
}

func (s flockStages) witnessJob(_ context.Context, p *Planned) (witness.Job, error) {
	n := p.sh.Words()
	in := p.input
	fill := s.f.spec.Fill
	return witness.Job{
		N: p.sh.N, NLog: p.sh.NLog,
		Write: func(w par.Workers, nLog int, wit, a, b []field.K) error { return fill(w, in, nLog, wit, a, b) },
		W:     p.stack.Data()[:n], A: p.a[:n], B: p.b[:n],
	}, nil
}

func (s flockStages) witnessed(p *Planned, _ witness.Job, _ witness.Batch, err error) (Witnessed, error) {
	if err != nil {
		p.release()
		return Witnessed{}, err
	}
	return Witnessed{p}, nil
}

// commitJob encodes the stack into a pooled commitment whose NTT plans come from the
// shape cache; committed then starts the transcript with the flow's label and sends
// the root (starting the transcript is the flow's part).
func (s flockStages) commitJob(ctx context.Context, p Witnessed) (commit.Job, error) {
	com := s.r.coms.Get()
	com.Plans = s.r.plans(ctx)
	return commit.Job{Stack: p.stack.Data(), StackLog: p.sh.StackLog, LogInvRate: p.sh.LogInvRate, Into: com}, nil
}

func (s flockStages) committed(p Witnessed, j commit.Job, com *commit.Committed, err error) (Committed, error) {
	if err != nil {
		s.r.coms.Put(j.Into)
		p.release()
		return Committed{}, err
	}
	tr := s.f.newProverTranscript(p.bind)
	halves := commit.RootHalves(com.Root())
	tr.SendMany(halves[:])
	return Committed{Planned: p.Planned, com: com, tr: tr}, nil
}
func (s flockStages) zerocheckJob(_ context.Context, c Committed) (zerocheck.Job, error) {
	n := c.sh.Words()
	return zerocheck.Job{Transcript: c.tr, Buffers: s.r.zc.Get(), Input: zerocheck.Input{
		A: c.a[:n], B: c.b[:n], C: c.stack.Data()[:n],
		M: c.sh.M(), LogInstance: c.sh.LogInstance, Live: c.sh.N,
	}}, nil
}

func (s flockStages) zerochecked(c Committed, j zerocheck.Job, res zerocheck.Result, err error) (Zerochecked, error) {
	s.r.zc.Put(j.Buffers)
	// A·w and B·w are read by the zerocheck only: their memory is the ring
	// weight's from now on.
	c.a, c.b = nil, nil
	if err != nil {
		c.release()
		s.r.coms.Put(c.com)
		return Zerochecked{}, err
	}
	return Zerochecked{Committed: &c, claims: res}, nil
}

func (s flockStages) lincheckJob(_ context.Context, z Zerochecked) (lincheck.Job, error) {
	var win *lincheck.Window
	if z.bind.Public != nil {
		w := z.bind.Public.Window()
		win = &w
	}
	return lincheck.Job{
		Transcript: z.tr, Circuit: s.f.circuit(), Q: z.stack.Data()[:z.sh.Words()], Live: z.sh.N,
		Claims: lincheck.ZerocheckClaims(z.claims), Public: win, Scratch: s.r.lin.Get(),
	}, nil
}

// linchecked keeps the lincheck scratch on the edge: the claim's point and slice
// values live in it until the ring switch has copied them.
func (s flockStages) linchecked(z Zerochecked, j lincheck.Job, claim lincheck.Claim, err error) (Linchecked, error) {
	if err != nil {
		s.r.lin.Put(j.Scratch)
		z.release()
		s.r.coms.Put(z.com)
		return Linchecked{}, err
	}
	return Linchecked{Committed: z.Committed, claim: claim, lin: j.Scratch}, nil
}

func (s flockStages) ringJob(_ context.Context, l Linchecked) (ringswitch.Job, error) {
	return ringswitch.Job{Transcript: l.tr, Point: l.claim.Point, S: l.claim.S, Weights: l.work.Data(), Scratch: s.r.ring.Get()}, nil
}

func (s flockStages) ringSwitched(l Linchecked, j ringswitch.Job, ring ringswitch.Claim, err error) (RingSwitched, error) {
	s.r.ring.Put(j.Scratch)
	s.r.lin.Put(l.lin) // the ring claim copied the point: the lincheck scratch is free
	l.lin = nil
	if err != nil {
		l.release()
		s.r.coms.Put(l.com)
		return RingSwitched{}, err
	}
	return RingSwitched{Committed: l.Committed, ring: ring}, nil
}

// openJob runs the stacked WHIR opening on the configuration the plan stage fetched.
func (s flockStages) openJob(ctx context.Context, r RingSwitched) (open.Job, error) {
	scratch := s.r.whir.Get()
	scratch.Plans = s.r.plans(ctx)
	scratch.Config = r.whir
	scratch.Wire = s.f.wire(r.sh)
	return open.Job{
		Transcript: r.tr, Commitment: r.com, Placement: open.Placement{Variables: r.sh.Mu, Offset: 0},
		Ring: r.ring, Scratch: scratch,
	}, nil
}

func (s flockStages) opened(r RingSwitched, j open.Job, _ open.Opened, err error) (Proved, error) {
	defer r.release()
	j.Scratch.Config, j.Scratch.Wire = nil, open.Wire{}
	s.r.whir.Put(j.Scratch)
	s.r.coms.Put(r.com) // the proof keeps copies of the opened rows, never the codeword
	if err != nil {
		return Proved{}, err
	}
	return Proved{Flow: s.f.Name(), Statement: r.st, Shape: r.sh, Proof: r.tr.Proof()}, nil
}

// Release returns to the pools every buffer a failed or cancelled run left on its edges.
func Release(res *graph.Result) {
	for _, v := range res.Unconsumed() {
		releaseValue(v)
	}
}

func releaseValue(v any) {
	if h, ok := v.(interface{ release() }); ok {
		h.release()
	}
}
