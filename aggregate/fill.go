package aggregate

import (
	"sync"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
)

// fillPieces is how many pieces a batch's walk is cut into (circuit.SolvePieces):
// the words each piece finishes are packed, by any worker, while the walk goes on.
const fillPieces = 32

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
	todo := min(groups, liveGroups+1)
	// The assembly walks 4 or 2 vectors at once (any other count walks in Go): an
	// odd count takes one more padding group when there is one (solved, it is the
	// copy it would otherwise get), and a batch of 3 becomes one of 4.
	if todo%2 == 1 && todo < groups {
		todo++
	}
	// Every batch is as wide as the walk goes, whatever the worker count: the
	// walk's cost per step is mostly its own (fetching, decoding and dispatching
	// the step), paid once per batch, so two workers each walking half the groups
	// would pay it twice. Workers share a batch instead by packing the words its
	// walk has finished while the walk goes on (fillSchedule).
	width := min(solveWidth, todo)
	if width == 3 {
		width = 4
	}
	fs := &fillSchedule{
		c: c, workers: workers, plans: plans, slots: slots, width: width, todo: todo,
		batches: (todo + width - 1) / width, pieces: c.SolvePieces(fillPieces),
		out: [3][]field.K{wit, a, b},
	}
	fs.cond.L = &fs.mu
	workers.Run(fs.work)
	if workers.Err() != nil {
		return workers.Err()
	}
	for g := todo; g < groups; g++ {
		src := (todo - 1) * size
		for _, dst := range [][]field.K{wit, a, b} {
			copy(dst[g*size:(g+1)*size], dst[src:src+size])
		}
	}
	return nil
}

// fillSchedule shares the solving and packing of fill's batches between the
// workers. A batch is walked by one worker a piece at a time; after each piece its
// finished words become a pack task, which any worker takes. A worker packs when a
// task is ready, else starts the next batch's walk (at most one batch per worker is
// in flight, which bounds the solve vectors held), else waits for a task.
type fillSchedule struct {
	c        *Circuit
	workers  graph.Workers
	plans    []Assignment
	slots    int
	width    int
	todo     int
	batches  int
	pieces   []circuit.SolvePiece
	out      [3][]field.K // witness, A0·w, B0·w
	mu       sync.Mutex
	cond     sync.Cond  // signalled when a task is queued or a walk ends
	next     int        // batches claimed
	inFlight int        // batches claimed and not yet fully packed
	walking  int        // walks in progress
	ready    []packTask // FIFO: a batch's earlier pieces first
	stop     bool       // a worker failed or the workers were stopped
}

// fillBatch is a batch in flight: its groups' solve vectors and how many of its
// pieces are not packed yet.
type fillBatch struct {
	g0   int
	fbs  []*fillBuffers
	left int
}

type packTask struct {
	bt    *fillBatch
	piece int
}

// work is one worker's loop. A worker that leaves abnormally (a panic, which the
// workers record) stops the others, which could otherwise wait for its tasks.
func (fs *fillSchedule) work(int) {
	ok := false
	defer func() {
		if !ok {
			fs.mu.Lock()
			fs.stop = true
			fs.cond.Broadcast()
			fs.mu.Unlock()
		}
	}()
	fs.mu.Lock()
	for {
		if fs.stop || fs.workers.Stopped() {
			fs.stop = true
			fs.cond.Broadcast()
			break
		}
		if len(fs.ready) > 0 {
			t := fs.ready[0]
			fs.ready = fs.ready[1:]
			fs.mu.Unlock()
			fs.pack(t)
			fs.mu.Lock()
			if t.bt.left--; t.bt.left == 0 {
				for _, fb := range t.bt.fbs {
					putFill(fb)
				}
				fs.inFlight--
				fs.cond.Broadcast() // a waiting worker may start the next batch
			}
			continue
		}
		if fs.next < fs.batches && fs.inFlight < fs.workers.N() {
			bt := &fillBatch{g0: fs.next * fs.width, left: len(fs.pieces)}
			fs.next++
			fs.inFlight++
			fs.walking++
			fs.mu.Unlock()
			fs.walk(bt)
			fs.mu.Lock()
			fs.walking--
			fs.cond.Broadcast()
			continue
		}
		if fs.next == fs.batches && fs.walking == 0 {
			break // every batch is walked, and no task is left to take
		}
		fs.cond.Wait()
	}
	fs.mu.Unlock()
	ok = true
}

// walk sets the inputs of bt's groups and walks them a piece at a time, queueing
// each piece's pack task as it ends.
func (fs *fillSchedule) walk(bt *fillBatch) {
	c, size := fs.c, fs.c.Size()
	g1 := min(fs.todo, bt.g0+fs.width)
	gi := groupFree.Get()
	bt.fbs = make([]*fillBuffers, g1-bt.g0)
	ws, was, wbs := make([][]uint64, len(bt.fbs)), make([][]uint64, len(bt.fbs)), make([][]uint64, len(bt.fbs))
	for i := range bt.fbs {
		fb := getFill(size)
		g := bt.g0 + i
		var lanes [64]*Assignment
		n := min(64, fs.slots-g*64)
		for j := range n {
			s := g*64 + j
			if s >= len(fs.plans) {
				s = 0
			}
			lanes[j] = &fs.plans[s]
		}
		// Every input column and the constant column are written whole:
		// StartSolve writes or zeroes every other one.
		c.setGroupInputs(fb.w, lanes[:n], gi)
		bt.fbs[i], ws[i], was[i], wbs[i] = fb, fb.w, fb.wa, fb.wb
	}
	groupFree.Put(gi)
	s := c.Circuit.StartSolve(ws, was, wbs)
	defer s.Close()
	for p, pc := range fs.pieces {
		if fs.workers.Stopped() {
			return // the proof is abandoned: the vectors are left to the collector
		}
		s.Run(pc.Hi)
		fs.mu.Lock()
		fs.ready = append(fs.ready, packTask{bt, p})
		fs.cond.Signal()
		fs.mu.Unlock()
	}
}

// pack writes the words of t's piece of every group of its batch into the packed
// vectors.
func (fs *fillSchedule) pack(t packTask) {
	c, size := fs.c, fs.c.Size()
	for i, fb := range t.bt.fbs {
		g := t.bt.g0 + i
		lanes := min(64, fs.slots-g*64)
		lo := g * size
		for k, src := range [3][]uint64{fb.w, fb.wa, fb.wb} {
			dst := fs.out[k][lo : lo+lanes*size/64]
			for _, r := range fs.pieces[t.piece].Words {
				c.PackLanesRange(dst, src, lanes, r[0], r[1])
			}
		}
	}
}
