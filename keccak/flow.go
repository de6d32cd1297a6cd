package keccak

import (
	"encoding/json"
	"fmt"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// FlowName and FlowLabel name the keccak-batch flow.
const (
	FlowName  = "keccak-batch"
	FlowLabel = "leanpipe-keccak-batch-v1"
)

// FlowLayout is the block layout of the registered flow (docs/keccak-batch.md
// says why). Read only: Flow was built with it.
var FlowLayout = Dense

// Flow is the registered keccak-batch flow.
var Flow = NewFlow(FlowLayout)

func init() { flows.Register(Flow) }

// hooks are test-only ways to make the filler write an invalid witness.
type hooks struct {
	faults   map[int]Fault // block → a flipped χ product bit in its first permutation
	fillFrom *Input        // fill the witness from these permutations, not the statement's
}

// Batch is an Input of the flow (made by its FromValue, Generate or Decode): the
// permutations grouped Perms to a block. Its Len is the block count (the Flock
// instances); Permutations is N.
type Batch struct {
	in *Input
	l  Layout
}

// Len is the number of blocks, ⌈N / Perms⌉.
func (b Batch) Len() int {
	if b.in == nil || b.l.Perms < 1 {
		return 0
	}
	return (b.in.Len() + b.l.Perms - 1) / b.l.Perms
}

// Permutations is N.
func (b Batch) Permutations() int { return b.in.Len() }

// Input is the batch's permutations.
func (b Batch) Input() *Input { return b.in }

// Statement is the statement data: {"permutations": N, "states": base64}.
func (b Batch) Statement() json.RawMessage { return b.StatementOn(par.Serial()) }

// StatementOn is Statement with the states encoded on w.
func (b Batch) StatementOn(w graph.Workers) json.RawMessage {
	return Statement{Permutations: b.in.Len(), States: b.in.States()}.appendJSON(w, nil)
}

// Binding is bind of the batch's statement, from the states themselves (the
// prover's plan stage takes it instead of decoding the statement's data).
func (b Batch) Binding() (flows.Binding, error) {
	s := Statement{Permutations: b.in.Len(), States: b.in.States()}
	return flows.Binding{Absorb: s.AbsorbBytes(), Public: &Public{l: b.l, states: s.States}}, nil
}

var (
	_ flows.StatedOn = Batch{}
	_ flows.Bound    = Batch{}
)

// NewFlow returns the keccak-batch Flock flow with layout l: the circuit of Perms
// permutations per block, the statement (N and every state) absorbed as a digest
// and pinned into every block by the lincheck's public term. A layout other than
// Dense (the registered one) labels its transcript FlowLabel-<Perms>x2^<LogSize>.
func NewFlow(l Layout) *flows.Flock { return newFlowWith(l, hooks{}) }

func newFlowWith(l Layout, h hooks) *flows.Flock {
	l.check()
	maxBlocks := 1 << (28 + 6 - l.LogSize)
	wrap := func(in *Input) (flows.Input, error) {
		if in == nil || in.Len() == 0 {
			return nil, fmt.Errorf("%w: %s: no permutations", flows.ErrInput, FlowName)
		}
		b := Batch{in: in, l: l}
		if b.Len() > maxBlocks {
			return nil, fmt.Errorf("%w: %s: %d permutations, at most %d", flows.ErrInput, FlowName, in.Len(), maxBlocks*l.Perms)
		}
		return b, nil
	}
	label := FlowLabel
	if l != Dense {
		// Another layout is another circuit: its proofs carry their own label.
		label = fmt.Sprintf("%s-%dx2^%d", FlowLabel, l.Perms, l.LogSize)
	}
	return flows.NewFlock(flows.FlockSpec{
		Name: FlowName, Label: label,
		Summary:     fmt.Sprintf("N Keccak-f[1600] permutations map the given input states to the given output states (%d per 2^%d block)", l.Perms, l.LogSize),
		LazyCircuit: func() *circuit.Circuit { return NewCircuit(l).Circuit },
		LogSize:     l.LogSize,
		MaxN:        maxBlocks,
		// The padding lanes of the level-0 rows are sent once (docs/keccak-batch.md §5).
		RepeatPadding: true,
		// The statement's data (the states in base64) is written on the plan
		// stage's workers (Batch.StatementOn).
		ParallelPlan: true,
		InputBytes:   l.Perms * PairSize * 3, // the states, the statement's copy, the public rows
		// The compiled circuit (710,660 instructions of 8 bytes at three
		// permutations per block), its walk vectors and the public term's tables.
		// TestEstimateBoundsPeakRSS holds the estimate to the measured peaks.
		FixedBytes: 64 << 20,
		Generate: func(n int, seed uint64) (flows.Input, error) {
			// n counts permutations; the flow's Check has bounded it by the
			// block count, so cap it here too.
			return wrap(GenerateInput(n, seed))
		},
		Decode: func(data []byte) (flows.Input, error) {
			in, err := NewInput(data)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", flows.ErrInput, err)
			}
			return wrap(in)
		},
		FromValue: func(v any) (flows.Input, error) {
			switch in := v.(type) {
			case *Input:
				return wrap(in)
			case Batch:
				return wrap(in.in)
			}
			return nil, fmt.Errorf("%w: %s takes *keccak.Input, not %T", flows.ErrInput, FlowName, v)
		},
		FileN: func(size int64) (int, error) {
			if size <= 0 || size%StateSize != 0 {
				return 0, fmt.Errorf("%w: a states file of %d bytes, not a positive multiple of %d", flows.ErrInput, size, StateSize)
			}
			return int((size/StateSize + int64(l.Perms) - 1) / int64(l.Perms)), nil
		},
		Fill: func(w graph.Workers, fin flows.Input, nLog int, wit, a, b []field.K) error {
			in, ok := fin.(Batch)
			if !ok || in.l != l || in.in == nil {
				return fmt.Errorf("%w: %s takes keccak.Batch of layout %+v, not %T", flows.ErrInput, FlowName, l, fin)
			}
			if h.fillFrom != nil {
				in.in = h.fillFrom
			}
			return l.fill(w, in.in, nLog, wit, a, b, h.faults)
		},
		Bind: func(st flows.Statement) (flows.Binding, error) { return bind(l, st) },
		Describe: func(st flows.Statement) string {
			s, err := StatementOf(l, st)
			if err != nil {
				return err.Error()
			}
			return fmt.Sprintf("flow %s, %d Keccak-f[1600] permutations of the given input states to the given output states (%d blocks of %d), log_inv_rate %d",
				FlowName, s.Permutations, st.N, l.Perms, st.LogInvRate)
		},
	})
}

// StatementOf decodes a flows.Statement's data as a keccak-batch statement and
// checks its block count against the statement's n.
func StatementOf(l Layout, st flows.Statement) (Statement, error) {
	if len(st.Data) == 0 {
		return Statement{}, fmt.Errorf("%w: %s: the statement has no states", flows.ErrInput, FlowName)
	}
	var s Statement
	if err := s.UnmarshalJSON(st.Data); err != nil { // no separate validation scan of the states
		return Statement{}, fmt.Errorf("%w: %s: %v", flows.ErrInput, FlowName, err)
	}
	if blocks := (s.Permutations + l.Perms - 1) / l.Perms; blocks != st.N {
		return Statement{}, fmt.Errorf("%w: %s: n = %d blocks but %d permutations need %d", flows.ErrInput, FlowName, st.N, s.Permutations, blocks)
	}
	return s, nil
}

func bind(l Layout, st flows.Statement) (flows.Binding, error) {
	s, err := StatementOf(l, st)
	if err != nil {
		return flows.Binding{}, err
	}
	return flows.Binding{Absorb: s.AbsorbBytes(), Public: &Public{l: l, states: s.States}}, nil
}

// StatementFor is the flows.Statement of a proof of the states string (N × 400
// bytes) with the registered flow at logInvRate (0: 1).
func StatementFor(states []byte, logInvRate int) (flows.Statement, error) {
	if err := checkStatesLen(states); err != nil {
		return flows.Statement{}, err
	}
	if logInvRate == 0 {
		logInvRate = 1
	}
	n := len(states) / PairSize
	d, _ := Statement{Permutations: n, States: states}.MarshalJSON()
	return flows.Statement{Flow: FlowName, N: (n + FlowLayout.Perms - 1) / FlowLayout.Perms, LogInvRate: logInvRate, Data: d}, nil
}

// Verify checks a proof (raw or wire form) that the permutations of the states
// string's input states are its output states, at logInvRate (0: 1).
func Verify(proof *transcript.Proof, states []byte, logInvRate int) error {
	st, err := StatementFor(states, logInvRate)
	if err != nil {
		return err
	}
	_, err = Flow.Verify(proof, st)
	return err
}
