package aggregate

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/leanpipe/leanpipe/buffers"
	"sync"
	"sync/atomic"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/xmss"
)

// FlowName and FlowLabel name the aggregation flow.
const (
	FlowName  = "xmss-aggregate"
	FlowLabel = "leanpipe-xmss-aggregate-v0"
)

// MaxSigners is the most signatures one proof aggregates (2^13 blocks of 2^21
// columns: a committed stack of 2^28 K words, the WHIR ladder's top).
const MaxSigners = 1 << (28 + 6 - LogSize)

// Flow is the registered xmss-aggregate flow.
var Flow = NewFlow()

func init() { flows.Register(Flow) }

// hooks are test-only ways to make the filler write a witness for an invalid
// signature (skipping the native check), so that soundness tests can show the
// verifier rejects the resulting proof.
type hooks struct {
	skipNativeCheck bool
	plan            func(slot int, a *Assignment)
	// circuit and matrices replace New().Circuit and Matrices() (nil: those).
	circuit  func() *circuit.Circuit
	matrices func() lincheck.Matrices
}

// NewFlow returns the xmss-aggregate Flock flow: the verification circuit proved per
// signature by the shared stages, the statement (message, epoch, key list) absorbed
// in the transcript and pinned into every block by the lincheck's public term.
func NewFlow() *flows.Flock { return newFlowWith(hooks{}, nil) }

// newFlowWith is NewFlow with test hooks, and bind (nil: the statement's own
// binding) in place of the flow's Bind.
func newFlowWith(h hooks, bind func(flows.Statement) (flows.Binding, error)) *flows.Flock {
	if bind == nil {
		bind = Bind
	}
	lazy := func() *circuit.Circuit { return New().Circuit }
	if h.circuit != nil {
		lazy = h.circuit
	}
	// A process that has built the circuit (for any flow value) walks it.
	matrices := func() lincheck.Matrices { return VerifierMatrices() }
	if h.matrices != nil {
		matrices = h.matrices
	}
	return flows.NewFlock(flows.FlockSpec{
		Name: FlowName, Label: FlowLabel,
		Summary: "N XMSS signatures on one message and epoch verify under N public keys (one 2^21-column block each)",
		// The circuit takes about a second to build: only a proof does (and a
		// verification in a process that has built it, which walks it).
		LazyCircuit: lazy,
		// A verification in a process that has not built it runs the circuit's
		// description instead (Matrices): no program is recorded or compiled.
		Matrices:   matrices,
		LogSize:    LogSize,
		MaxN:       MaxSigners,
		InputBytes: xmss.SignatureSize + xmss.PublicKeySize + 1<<10,
		// A process's first proof loads the circuit's compiled form from the
		// on-disk cache (110 MiB of it stays as the circuit) and runs the
		// lincheck's tensor walks (circuit.TransposeTensorOn) on it: 286 MiB peak
		// RSS for one signer, 319 for 16, 469 for 64, 1217 for 256. A process
		// that builds the circuit (no cache holds it: a machine's first process)
		// peaks in the compile, 447–451 MiB for one signer, 447–462 for 16,
		// 467–469 for 64 (its buffers held meanwhile), 1213 for 256 (2026-12-05,
		// GOMAXPROCS 1, 2, 4 and 8 alike). 424 MiB puts one signer's estimate
		// (472 MiB) between those two cases' bounds, the build's 451 and
		// 1.5 × 286 + 64 = 493: TestEstimateBoundsPeakRSS checks both.
		FixedBytes: 424 << 20,
		Generate: func(n int, seed uint64) (flows.Input, error) {
			in, err := Generate(n, seed, DefaultCache())
			if err != nil {
				return nil, err
			}
			return in, nil
		},
		Decode: func(data []byte) (flows.Input, error) {
			in, err := ParseInput(data)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", flows.ErrInput, err)
			}
			return in, nil
		},
		FromValue: func(v any) (flows.Input, error) {
			switch in := v.(type) {
			case *Input:
				return newFlowValue(in)
			case Input:
				return newFlowValue(&in)
			}
			return nil, fmt.Errorf("%w: %s takes *aggregate.Input, not %T", flows.ErrInput, FlowName, v)
		},
		FileN: func(size int64) (int, error) {
			// A JSON file: about 2.5 KB per signer; the exact count is known only after parsing.
			if size <= 0 {
				return 0, errors.New("aggregate: empty input file")
			}
			return int(max(1, min(size/(2*(xmss.SignatureSize+xmss.PublicKeySize)), MaxSigners))), nil
		},
		Fill: func(w graph.Workers, fin flows.Input, nLog int, wit, a, b []field.K) error {
			in, ok := fin.(*Input)
			if !ok || in.Len() == 0 {
				return fmt.Errorf("%w: %s takes *aggregate.Input, not %T", flows.ErrInput, FlowName, fin)
			}
			if !h.skipNativeCheck {
				if err := in.CheckOn(w); err != nil {
					if w.Err() != nil {
						return err
					}
					return fmt.Errorf("%w: %v", flows.ErrInput, err)
				}
			}
			return New().fill(w, in, nLog, wit, a, b, h.plan)
		},
		Bind: bind,
		Describe: func(st flows.Statement) string {
			ag, err := StatementOf(st)
			if err != nil {
				return err.Error()
			}
			return fmt.Sprintf("flow %s, %d signatures by the listed public keys on message %x at epoch %d, log_inv_rate %d",
				FlowName, len(ag.PublicKeys), ag.Message, ag.Epoch, st.LogInvRate)
		},
	})
}

// newFlowValue accepts a Go value as the flow's input: its keys must be distinct.
func newFlowValue(in *Input) (flows.Input, error) {
	if err := checkDistinct(in.PublicKeys()); err != nil {
		return nil, fmt.Errorf("%w: %v", flows.ErrInput, err)
	}
	return in, nil
}

// Bind is the flow's statement binding: the statement's bytes absorbed after the
// label, and its public table pinned by the lincheck's public term.
func Bind(st flows.Statement) (flows.Binding, error) {
	ag, err := StatementOf(st)
	if err != nil {
		return flows.Binding{}, err
	}
	return flows.Binding{Absorb: ag.AbsorbBytes(), Public: ag.PublicTable()}, nil
}

// StatementOf decodes a flows.Statement's data as an aggregation statement and
// checks that its key count is the statement's n.
func StatementOf(st flows.Statement) (Aggregate, error) {
	if len(st.Data) == 0 {
		return Aggregate{}, fmt.Errorf("%w: %s: the statement has no message, epoch and public keys", flows.ErrInput, FlowName)
	}
	// A statement in MarshalJSON's form is read at once; json.Unmarshal would
	// first scan it whole for its syntax.
	ag, ok := parseCanonical(st.Data)
	if !ok {
		if err := json.Unmarshal(st.Data, &ag); err != nil {
			return Aggregate{}, fmt.Errorf("%w: %s: %v", flows.ErrInput, FlowName, err)
		}
	}
	if len(ag.PublicKeys) != st.N {
		return Aggregate{}, fmt.Errorf("%w: %s: n = %d but %d public keys", flows.ErrInput, FlowName, st.N, len(ag.PublicKeys))
	}
	return ag, nil
}

// fillBuffers are one Solve group's bit-sliced vectors.
type fillBuffers struct {
	w, wa, wb []uint64
}

// solveWidth is how many 64-slot groups one walk of the circuit solves.
const solveWidth = 4

// fillFree keeps the filler's vectors between proofs (a sync.Pool would lose them
// to the collector, and each proof would fault in fresh pages): at most
// fillKeep sets, the rest are dropped.
var fillFree struct {
	sync.Mutex
	bufs []*fillBuffers
}

const fillKeep = 2 * solveWidth

func getFill(size int) *fillBuffers {
	fillFree.Lock()
	var fb *fillBuffers
	if n := len(fillFree.bufs); n > 0 {
		fb, fillFree.bufs = fillFree.bufs[n-1], fillFree.bufs[:n-1]
	}
	fillFree.Unlock()
	if fb == nil || len(fb.w) != size {
		fb = &fillBuffers{w: buffers.Make[uint64](size), wa: buffers.Make[uint64](size), wb: buffers.Make[uint64](size)}
	}
	return fb
}

// planFree keeps the filler's assignments (about 4 KiB a signer) and groupFree its
// input-setting memory (the Beneš router, the lanes' bit strings) between proofs:
// allocated afresh, they are faulted in afresh once the collector has returned the
// heap's free pages to the kernel.
var (
	planFree  buffers.Shelf[[]Assignment]
	groupFree buffers.Shelf[groupInputs]
)

func putFill(fb *fillBuffers) {
	fillFree.Lock()
	if len(fillFree.bufs) < fillKeep {
		fillFree.bufs = append(fillFree.bufs, fb)
	}
	fillFree.Unlock()
}

// fill writes the packed witness, A0·w and B0·w of 2^nLog slots: slot s < in.Len()
// holds signer s, every later slot a copy of signer 0. Groups of 64 slots are solved
// bit-sliced, several per walk; the bytes do not depend on workers.
func (c *Circuit) fill(workers graph.Workers, in *Input, nLog int, wit, a, b []field.K, hook func(int, *Assignment)) error {
	size := c.Size()
	slots := 1 << nLog
	groups := (slots + 63) / 64
	// Padding groups (every slot ≥ in.Len()) are all copies of signer 0: one such
	// group is solved and copied to the others.
	liveGroups := (in.Len() + 63) / 64
	held := planFree.Get()
	defer planFree.Put(held)
	*held = buffers.Grow(*held, min(slots, in.Len()))
	plans := *held
	workers.Range(len(plans), func(lo, hi int) {
		for s := lo; s < hi; s++ {
			planInto(&plans[s], in.Block(s), &in.Signers[s].Signature)
			if hook != nil {
				hook(s, &plans[s])
			}
		}
	})
	// Groups are solved up to solveWidth at a time (one walk of the circuit for all
	// of them), one batch per worker at a time, each batch handed to the next free
	// worker (a worker slowed by the machine takes fewer).
	todo := min(groups, liveGroups+1)
	// The assembly walks 4 or 2 vectors at once (any other count walks in Go): an
	// odd count takes one more padding group when there is one (solved, it is the
	// copy it would otherwise get), and a batch of 3 becomes one of 4.
	if todo%2 == 1 && todo < groups {
		todo++
	}
	// prepare takes group g's vectors off the shelf and sets its inputs.
	prepare := func(g int, gi *groupInputs) *fillBuffers {
		fb := getFill(size)
		var lanes [64]*Assignment
		n := min(64, slots-g*64)
		for j := range n {
			s := g*64 + j
			if s >= len(plans) {
				s = 0
			}
			lanes[j] = &plans[s]
		}
		// Every input column and the constant column are written whole:
		// SolveMany writes or zeroes every other one.
		c.setGroupInputs(fb.w, lanes[:n], gi)
		return fb
	}
	// pack packs the word blocks [k0, k1) of groups g0, g0+1, … (fbs) into the
	// witness and the row values.
	pack := func(fbs []*fillBuffers, g0, k0, k1 int) {
		for i, fb := range fbs {
			g := g0 + i
			lanes := min(64, slots-g*64)
			lo := g * size
			for k, src := range [3][]uint64{fb.w, fb.wa, fb.wb} {
				c.PackLanesRange([3][]field.K{wit, a, b}[k][lo:lo+lanes*size/64], src, lanes, k0, k1)
			}
		}
	}
	// walk solves groups g0, g0+1, … (fbs, inputs set) in one walk and calls
	// done for each run of word blocks as soon as the walk has completed it.
	walk := func(fbs []*fillBuffers, done func(k0, k1 int)) {
		ws, was, wbs := make([][]uint64, len(fbs)), make([][]uint64, len(fbs)), make([][]uint64, len(fbs))
		for i, fb := range fbs {
			ws[i], was[i], wbs[i] = fb.w, fb.wa, fb.wb
		}
		c.Circuit.SolveManyStream(ws, was, wbs, done)
	}
	// Batches of up to solveWidth groups (a walk's per-step cost, about what four
	// groups' own work costs in BenchmarkSolveWidth, is paid once a batch), taken by
	// the workers on demand. Packing a batch's blocks is as much work again as its
	// walk, and it is shared: each walk queues the runs of blocks it completes; a
	// walker packs the queued runs itself, while they are in the cache, as long as
	// every worker is walking, and leaves them to the others once one is out of
	// batches (such a worker packs until every walk is done and every run packed). So
	// a single batch is walked by one worker while the others pack it, and a batch
	// count the workers do not divide evenly does not leave one idle.
	width := min(solveWidth, todo)
	if width == 3 {
		width = 4
	}
	batches := (todo + width - 1) / width
	bs := make([]*fillBatch, batches)
	for bt := range bs {
		g0 := bt * width
		bs[bt] = &fillBatch{g0: g0, fbs: make([]*fillBuffers, min(todo, g0+width)-g0)}
		bs[bt].left.Store(1)
	}
	prepareBatch := func(bt *fillBatch) {
		gi := groupFree.Get()
		for i := range bt.fbs {
			bt.fbs[i] = prepare(bt.g0+i, gi)
		}
		groupFree.Put(gi)
	}
	// With fewer batches than workers, a worker without a batch would wait for
	// runs to pack while the walkers set their groups' inputs (3.4 ms for four
	// groups, the whole walk's lead): every group's inputs are set first, on all
	// the workers, and the walkers walk at once.
	ahead := batches < workers.N()
	if ahead {
		workers.Range(todo, func(lo, hi int) {
			gi := groupFree.Get()
			defer groupFree.Put(gi)
			for g := lo; g < hi; g++ {
				bs[g/width].fbs[g%width] = prepare(g, gi)
			}
		}, par.MinChunk(1))
		if err := workers.Err(); err != nil {
			return err
		}
	}
	finish := func(bt *fillBatch) {
		if bt.left.Add(-1) == 0 {
			for _, fb := range bt.fbs {
				putFill(fb)
			}
		}
	}
	packRun := func(r fillRun) {
		pack(r.b.fbs, r.b.g0, r.k0, r.k1)
		finish(r.b)
	}
	q := newRunQueue()
	var next, walked atomic.Int64
	var packers atomic.Int32 // workers out of batches
	workers.Run(func(worker int) {
		defer func() {
			if r := recover(); r != nil {
				q.close() // no worker waits for runs that will not come
				panic(r)
			}
		}()
		for !workers.Stopped() {
			i := int(next.Add(1)) - 1
			if i >= batches {
				break
			}
			bt := bs[i]
			if !ahead {
				prepareBatch(bt)
			}
			walk(bt.fbs, func(k0, k1 int) {
				// Pieces of at most packPiece blocks spread the packing evenly.
				for ; k0 < k1; k0 += packPiece {
					bt.left.Add(1)
					q.push(fillRun{bt, k0, min(k1, k0+packPiece)})
				}
				if packers.Load() == 0 {
					for r, ok := q.tryPop(); ok; r, ok = q.tryPop() {
						packRun(r)
					}
				}
			})
			finish(bt)
			if walked.Add(1) == int64(batches) {
				q.close()
			}
		}
		packers.Add(1)
		if workers.Stopped() {
			q.close()
		}
		for r, ok := q.pop(); ok; r, ok = q.pop() {
			packRun(r)
		}
	})
	return c.fillPadding(workers, todo, groups, wit, a, b)
}

// fillBatch is a batch of groups g0, g0+1, … walked together (fbs their vectors).
type fillBatch struct {
	g0   int
	fbs  []*fillBuffers
	left atomic.Int64 // the walk (until it is done) and its queued runs not yet packed
}

// fillRun is a run of word blocks [k0, k1) that batch b's walk has completed.
type fillRun struct {
	b      *fillBatch
	k0, k1 int
}

// packPiece is the most word blocks (64 columns each) a queued run holds: packing
// 128 blocks of four groups' three vectors writes 768 KiB.
const packPiece = 128

// runQueue hands the runs of word blocks the walks report to the workers that
// pack them. push never blocks (a walk is never held up by the packers); pop waits
// for a run and reports false once the queue is closed and empty.
type runQueue struct {
	mu     sync.Mutex
	cond   sync.Cond
	runs   []fillRun
	next   int
	closed bool
}

func newRunQueue() *runQueue {
	q := &runQueue{}
	q.cond.L = &q.mu
	return q
}

func (q *runQueue) push(r fillRun) {
	q.mu.Lock()
	q.runs = append(q.runs, r)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *runQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// tryPop takes the oldest run, if any, without waiting.
func (q *runQueue) tryPop() (fillRun, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.take()
}

func (q *runQueue) pop() (fillRun, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.next == len(q.runs) && !q.closed {
		q.cond.Wait()
	}
	return q.take()
}

func (q *runQueue) take() (fillRun, bool) {
	if q.next == len(q.runs) {
		return fillRun{}, false
	}
	r := q.runs[q.next]
	q.runs[q.next] = fillRun{}
	q.next++
	return r, true
}

// fillPadding copies the last solved group (todo−1) to groups todo, …, groups−1,
// once the walks have ended without error.
func (c *Circuit) fillPadding(workers graph.Workers, todo, groups int, wit, a, b []field.K) error {
	if workers.Err() != nil {
		return workers.Err()
	}
	size := c.Size()
	for g := todo; g < groups; g++ {
		src := (todo - 1) * size
		for _, dst := range [][]field.K{wit, a, b} {
			copy(dst[g*size:(g+1)*size], dst[src:src+size])
		}
	}
	return nil
}
