package aggregate

import (
	"errors"
	"fmt"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/xmss"
)

// Signed is one signature with its statement.
type Signed struct {
	Statement
	Signature xmss.Signature
}

// Signatures is the flow's input: one block per signature.
type Signatures []Signed

// Len is the number of signatures.
func (s Signatures) Len() int { return len(s) }

// FlowName and FlowLabel name the aggregation flow (not registered yet).
const (
	FlowName  = "xmss-aggregate"
	FlowLabel = "leanpipe-xmss-aggregate-v0"
)

// NewFlow returns the xmss-aggregate Flock flow: the verification circuit proved per
// signature by the shared stages. It does not yet bind the pinned regions to a
// statement (no public-input lincheck term): a proof shows only that every block
// satisfies the circuit. Not registered globally.
func NewFlow() *flows.Flock {
	c := New()
	return flows.NewFlock(flows.FlockSpec{
		Name: FlowName, Label: FlowLabel,
		Summary:    "XMSS signature verification, one 2^22 block per signature (circuit only; statement binding pending)",
		Circuit:    c.Circuit,
		MaxN:       1 << (28 + 6 - LogSize),
		InputBytes: xmss.SignatureSize + 128,
		Generate: func(int, uint64) (flows.Input, error) {
			return nil, fmt.Errorf("%w: %s generates no signers yet", flows.ErrInput, FlowName)
		},
		Decode: func([]byte) (flows.Input, error) {
			return nil, fmt.Errorf("%w: %s has no input file yet", flows.ErrInput, FlowName)
		},
		FromValue: func(v any) (flows.Input, error) {
			if s, ok := v.(Signatures); ok {
				return s, nil
			}
			return nil, fmt.Errorf("%w: %s takes aggregate.Signatures, not %T", flows.ErrInput, FlowName, v)
		},
		FileN: func(int64) (int, error) { return 0, errors.New("aggregate: no input file yet") },
		Fill: func(_ graph.Workers, in flows.Input, nLog int, wit, a, b []field.K) error {
			sigs, ok := in.(Signatures)
			if !ok || len(sigs) == 0 {
				return fmt.Errorf("%w: %s takes aggregate.Signatures, not %T", flows.ErrInput, FlowName, in)
			}
			for i := range sigs {
				s := &sigs[i]
				if err := xmss.Verify(s.PublicKey, s.Epoch, s.Message, &s.Signature); err != nil {
					return fmt.Errorf("%w: signature %d: %v", flows.ErrInput, i, err)
				}
			}
			return c.fill(sigs, nLog, wit, a, b)
		},
	})
}

// fill writes the packed witness, A0·w and B0·w of 2^nLog slots: slot s < len(sigs)
// holds signature s, every later slot a copy of signature 0.
func (c *Circuit) fill(sigs Signatures, nLog int, wit, a, b []field.K) error {
	size := c.Size()
	slots := 1 << nLog
	w := make([]uint64, size)
	wa := make([]uint64, size)
	wb := make([]uint64, size)
	packed := make([]field.K, size)
	for g := 0; g < slots; g += 64 {
		clear(w)
		for j := 0; j < 64 && g+j < slots; j++ {
			s := &sigs[0]
			if g+j < len(sigs) {
				s = &sigs[g+j]
			}
			c.SetInputs(w, uint(j), Plan(s.Statement, &s.Signature))
		}
		c.Circuit.Solve(w, wa, wb)
		lo, hi := g*size/64, min(g+64, slots)*size/64
		for i, dst := range [][]field.K{wit, a, b} {
			c.PackRows(packed, [][]uint64{w, wa, wb}[i])
			copy(dst[lo:hi], packed)
		}
	}
	return nil
}
