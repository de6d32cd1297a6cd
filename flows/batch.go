package flows

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"
	"unsafe"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
)

// Label is the Fiat–Shamir label of the standalone BLAKE2s batch proof.
const Label = "flock-blake2s-batch"

// Name is the batch flow's name in configs, proof metadata and logs.
const Name = DefaultName

// MaxBatch is the largest batch the flow accepts (2^20 compressions: a 2^28-word
// stack, the WHIR ladder's largest).
const MaxBatch = 1 << 20

// Blocks is the batch flow's input: the BLAKE2s compressions proved.
type Blocks []witness.Compression

// Len is the number of compressions.
func (b Blocks) Len() int { return len(b) }

// Batch is the standalone BLAKE2s batch flow, byte-identical to the reference's.
var Batch = NewFlock(FlockSpec{
	Name:    Name,
	Label:   Label,
	Summary: "the standalone Flock BLAKE2s batch proof (leanVM-b's blake2s_batch), byte-identical to the reference",
	// Built on first use: a process that never proves or verifies a batch (a merged
	// proof's one-shot verification, say) does not pay for its 18.7 MB at start-up.
	LazyCircuit: circuit.BLAKE2s,
	LogSize:     circuit.Blake2sLogSize,
	MaxN:        MaxBatch,
	InputBytes:  int(unsafe.Sizeof(witness.Compression{})) + witness.BlockSize,
	Generate: func(n int, seed uint64) (Input, error) {
		return Blocks(Generate(n, seed)), nil
	},
	Decode: func(data []byte) (Input, error) {
		blocks, err := witness.DecodeBlocks(data)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInput, err)
		}
		return Blocks(blocks), nil
	},
	FromValue: func(v any) (Input, error) {
		switch b := v.(type) {
		case Blocks:
			return b, nil
		case []witness.Compression:
			return Blocks(b), nil
		}
		return nil, fmt.Errorf("%w: %s takes []witness.Compression, not %T", ErrInput, Name, v)
	},
	FileN: func(size int64) (int, error) {
		if size <= 0 || size%witness.BlockSize != 0 {
			return 0, fmt.Errorf("%w: a blocks file of %d bytes, not a positive multiple of %d", ErrInput, size, witness.BlockSize)
		}
		return int(size / witness.BlockSize), nil
	},
	Fill: func(w graph.Workers, in Input, nLog int, wit, a, b []field.K) error {
		blocks, ok := in.(Blocks)
		if !ok {
			return fmt.Errorf("%w: %s takes Blocks, not %T", ErrInput, Name, in)
		}
		return witness.FillAB(wit, a, b, blocks, nLog, w)
	},
})

func init() { Register(Batch) }

// Generate returns n pinned compressions (single-block BLAKE2s-256 hashes of 64-byte
// messages) whose message words are drawn from PCG(seed, 0x6c65616e70697065). The same
// (n, seed) always gives the same blocks.
func Generate(n int, seed uint64) []witness.Compression {
	rng := rand.New(rand.NewPCG(seed, 0x6c65616e70697065))
	blocks := make([]witness.Compression, n)
	for i := range blocks {
		var m [16]uint32
		for j := range m {
			m[j] = rng.Uint32()
		}
		blocks[i] = witness.Pinned(m)
	}
	return blocks
}

// BatchShape returns the shape of a batch of n compressions at the given rate.
func BatchShape(n, logInvRate int) (Shape, error) { return Batch.Shape(n, logInvRate) }

// NewMeta describes a batch proof of n compressions.
func NewMeta(n, logInvRate int, format string) Meta {
	return NewMetaFor(Batch, Statement{Flow: Name, N: n, LogInvRate: logInvRate}, format)
}

// BatchOptions configure ProveBatch; the zero value is the defaults.
type BatchOptions struct {
	// LogInvRate is the WHIR level-0 log inverse rate (0: the reference's, 1).
	LogInvRate int
	// Workers is the number of cores the stages use (0: runtime.NumCPU()).
	Workers int
}

// ProveBatch proves the compressions on the direct call path (the batch flow's stages
// run in order on the caller's goroutine, no graph), returning the proof with both
// Merkle forms. No blocks, or negative options, are errors wrapping ErrInput.
func ProveBatch(blocks []witness.Compression, o BatchOptions) (*transcript.Proof, error) {
	if len(blocks) == 0 {
		return nil, fmt.Errorf("%w: %s: no compressions", ErrInput, Name)
	}
	p, err := Prove(context.Background(), Request{Flow: Batch, Input: Blocks(blocks), LogInvRate: o.LogInvRate}, ProveOptions{Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	return p.Proof, nil
}

// VerifyBatch verifies a batch proof of n compressions (the statement: only the slot
// count 2^NLog it implies enters the proof) at the given rate. It accepts raw and
// wire proofs. It never panics: a nil proof, n out of range or a bad rate are errors
// wrapping ErrInput.
func VerifyBatch(proof *transcript.Proof, n, logInvRate int) error {
	_, err := VerifyBatchRaw(proof, n, logInvRate)
	return err
}

// VerifyBatchRaw is VerifyBatch that also returns the raw form (one full Merkle path
// per query) of the accepted proof, as the reference verifier does for wire proofs.
func VerifyBatchRaw(proof *transcript.Proof, n, logInvRate int) (*transcript.Proof, error) {
	return Batch.Verify(proof, Statement{Flow: Name, N: n, LogInvRate: logInvRate})
}

// ProveOptions configure Prove, the direct call path; the zero value is the defaults.
type ProveOptions struct {
	// Workers is the number of cores the stages use (0: runtime.NumCPU()).
	Workers int
}

// Prove runs req's flow on the direct call path: the flow's stages, the same ones the
// Engine wires into its graph, run in order on the caller's goroutine with
// o.Workers cores and fresh resources. Proof bytes equal the Engine's. A nil
// context or input, or negative options, are errors wrapping ErrInput.
func Prove(ctx context.Context, req Request, o ProveOptions) (Proved, error) {
	if err := req.check(ctx); err != nil {
		return Proved{}, err
	}
	if o.Workers < 0 {
		return Proved{}, fmt.Errorf("%w: %d workers", ErrInput, o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = runtime.NumCPU()
	}
	start := time.Now()
	req = req.withDefaults()
	res := NewResources(nil, 1)
	p, spans, leftover, err := req.Flow.Prover(res).Run(ctx, graph.NewWorkers(ctx, o.Workers), req)
	if err != nil {
		releaseValue(leftover)
		return Proved{}, fmt.Errorf("flows: %w", err)
	}
	p.Spans = spans
	p.Wall = time.Since(start)
	return p, nil
}
