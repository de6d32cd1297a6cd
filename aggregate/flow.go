package aggregate

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/leanpipe/leanpipe/buffers"
	"sync"

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
	if workers.N() > 1 && todo <= solveWidth {
		// A single batch: a second walk would repeat the walk's per-step cost, which
		// is about what four groups' own work costs (BenchmarkSolveWidth), so one
		// worker walks every group at once and the packing, as much work again, is
		// shared: the other workers pack the blocks the walk reports as it reports
		// them, the walker joins them once it is done.
		fbs := make([]*fillBuffers, todo)
		workers.Range(todo, func(lo, hi int) {
			gi := groupFree.Get()
			for g := lo; g < hi; g++ {
				fbs[g] = prepare(g, gi)
			}
			groupFree.Put(gi)
		})
		if err := workers.Err(); err != nil {
			for _, fb := range fbs {
				if fb != nil {
					putFill(fb)
				}
			}
			return err
		}
		q := newRunQueue()
		workers.Run(func(worker int) {
			if worker == 0 {
				func() {
					defer q.close() // the packers stop even if the walk panics
					walk(fbs, func(k0, k1 int) {
						// Pieces of at most packPiece blocks spread the packing evenly.
						for ; k0 < k1; k0 += packPiece {
							q.push(k0, min(k1, k0+packPiece))
						}
					})
				}()
			}
			for {
				k0, k1, ok := q.pop()
				if !ok {
					return
				}
				pack(fbs, 0, k0, k1)
			}
		})
		for _, fb := range fbs {
			putFill(fb)
		}
		return c.fillPadding(workers, todo, groups, wit, a, b)
	}
	// Several batches: each worker walks its batches and packs them itself, each
	// run of blocks as soon as its walk has completed it, while the walk's writes
	// are still in the cache, not in a second pass over the vectors.
	width := min(solveWidth, (todo+workers.N()-1)/workers.N())
	if width == 3 {
		width = 4
	}
	batches := (todo + width - 1) / width
	workers.Range(batches, func(lo, hi int) {
		for bt := lo; bt < hi; bt++ {
			g0, g1 := bt*width, min(todo, (bt+1)*width)
			gi := groupFree.Get()
			fbs := make([]*fillBuffers, g1-g0)
			for i := range fbs {
				fbs[i] = prepare(g0+i, gi)
			}
			groupFree.Put(gi)
			walk(fbs, func(k0, k1 int) { pack(fbs, g0, k0, k1) })
			for _, fb := range fbs {
				putFill(fb)
			}
		}
	}, par.PerWorker(batches))
	return c.fillPadding(workers, todo, groups, wit, a, b)
}

// packPiece is the most word blocks (64 columns each) the shared packing of a
// single batch hands to a worker at a time: 128 blocks of four groups' three
// vectors are 768 KiB.
const packPiece = 128

// runQueue hands the runs of word blocks a walk reports to the workers that pack
// them. push never blocks (the walk is never held up by the packers); pop waits for
// a run and reports false once the queue is closed and empty.
type runQueue struct {
	mu     sync.Mutex
	cond   sync.Cond
	runs   [][2]int
	next   int
	closed bool
}

func newRunQueue() *runQueue {
	q := &runQueue{}
	q.cond.L = &q.mu
	return q
}

func (q *runQueue) push(k0, k1 int) {
	q.mu.Lock()
	q.runs = append(q.runs, [2]int{k0, k1})
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *runQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *runQueue) pop() (k0, k1 int, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.next == len(q.runs) && !q.closed {
		q.cond.Wait()
	}
	if q.next == len(q.runs) {
		return 0, 0, false
	}
	r := q.runs[q.next]
	q.next++
	return r[0], r[1], true
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
