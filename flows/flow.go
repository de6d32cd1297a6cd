package flows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/transcript"
)

// Flow is one kind of proof: its name and transcript label, how a job's input (a
// file, a generated seed or a Go value) becomes the instances it proves, the ordered
// stages of its prover (one definition: the direct path and the engine graph are both
// built from Prover), its verifier, and the memory a proof needs. Flows are found by
// name in the registry (Register, Lookup); the command line, configs and streams
// reach them only through it.
type Flow interface {
	// Name is the flow's name in configs, jobs, proof metadata and logs.
	Name() string
	// Label is the Fiat–Shamir label the transcript starts with.
	Label() string
	// Summary describes the flow in one line (for listings).
	Summary() string
	// MaxN is the most instances one proof holds.
	MaxN() int
	// Generate returns n instances drawn from seed: the same (n, seed) always gives
	// the same input.
	Generate(n int, seed uint64) (Input, error)
	// Decode reads an input file's contents.
	Decode(data []byte) (Input, error)
	// FromValue accepts an input given as a Go value by a library user.
	FromValue(v any) (Input, error)
	// FileN returns the instance count of an input file of size bytes without
	// reading it (an error when no file of that size is valid input).
	FileN(size int64) (int, error)
	// Check reports whether a proof of n instances at logInvRate can be made; it
	// does no work.
	Check(n, logInvRate int) error
	// Estimate is the memory one proof of n instances at logInvRate is budgeted for,
	// in bytes, with warm buffer pools (an upper bound, not the exact peak).
	Estimate(n, logInvRate int) int64
	// Prover returns the flow's stages bound to res, in protocol order.
	Prover(res *Resources) graph.Chain[Request, Proved]
	// Verify checks a proof of st (raw or wire form) and returns its raw form.
	Verify(proof *transcript.Proof, st Statement) (*transcript.Proof, error)
}

// Input is the instances one proof proves, in a flow's own type.
type Input interface {
	// Len is the number of instances.
	Len() int
}

// Statement is what a verifier is told: the flow, the instance count, the rate, and
// any flow-specific public data (a JSON object; its fields sit beside the
// metadata's own in PROOF.json).
type Statement struct {
	Flow       string
	N          int
	LogInvRate int
	Data       json.RawMessage
}

// Stated is an Input that carries public data beyond its instance count (the
// statement's Data); inputs without it have an empty statement.
type Stated interface {
	Statement() json.RawMessage
}

// Checked is an Input that can be checked before any proving, beyond its parsing
// (an XMSS aggregation input verifies its signatures natively).
type Checked interface {
	Check() error
}

// CheckInput runs in's Check when it has one; the command line and streams call it
// before proving, so that a bad input is refused with its own reason.
func CheckInput(in Input) error {
	if c, ok := in.(Checked); ok {
		return c.Check()
	}
	return nil
}

// CheckStatement reports whether f accepts st's data: through the flow's own
// CheckStatement(Statement) error when it has one; otherwise a flow takes no data.
func CheckStatement(f Flow, st Statement) error {
	if c, ok := f.(interface{ CheckStatement(Statement) error }); ok {
		return c.CheckStatement(st)
	}
	if len(st.Data) != 0 {
		return fmt.Errorf("%w: %s has no statement data", ErrInput, f.Name())
	}
	return nil
}

// StatementOf returns the statement proved when proving in with flow f at logInvRate.
func StatementOf(f Flow, in Input, logInvRate int) Statement {
	st := Statement{Flow: f.Name(), N: in.Len(), LogInvRate: logInvRate}
	if s, ok := in.(Stated); ok {
		st.Data = s.Statement()
	}
	return st
}

// Request is one proof to make: a flow (nil: the default flow), its input and the
// level-0 log inverse rate (0: the reference's, 1). The zero value of every field
// but Input means its default.
type Request struct {
	Flow       Flow
	Input      Input
	LogInvRate int
}

// check refuses what no flow can prove: a nil context or input, a negative rate.
func (r Request) check(ctx context.Context) error {
	switch {
	case ctx == nil:
		return fmt.Errorf("%w: nil context", ErrInput)
	case r.Input == nil:
		return fmt.Errorf("%w: request without input", ErrInput)
	case r.LogInvRate < 0:
		return fmt.Errorf("%w: log inverse rate %d", ErrInput, r.LogInvRate)
	}
	return nil
}

func (r Request) withDefaults() Request {
	if r.Flow == nil {
		r.Flow = Default()
	}
	if r.LogInvRate == 0 {
		r.LogInvRate = 1
	}
	return r
}

// Statement is the statement the request proves.
func (r Request) Statement() Statement {
	r = r.withDefaults()
	return StatementOf(r.Flow, r.Input, r.LogInvRate)
}

// Proved is a finished proof with its run record: the statement proved, the
// shape, the proof, each stage's span, and Wall, the proof's wall time from the
// request to the proof (Engine.Prove and Prove both set it).
type Proved struct {
	Flow      string
	Statement Statement
	Shape     Shape
	Proof     *transcript.Proof
	Spans     []graph.Span
	Wall      time.Duration
}

// Errors of the registry and of requests.
var (
	// ErrUnknownFlow reports a flow name that is not registered.
	ErrUnknownFlow = errors.New("flows: unknown flow")
	// ErrInput reports an input a flow cannot prove.
	ErrInput = errors.New("flows: invalid input")
)

var registry struct {
	mu    sync.RWMutex
	flows map[string]Flow
}

// DefaultName is the flow used when none is named: the BLAKE2s batch proof.
const DefaultName = "blake2s-batch"

// Register adds f to the registry. It panics on an empty or duplicate name (a
// programming error, found at start-up).
func Register(f Flow) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	name := f.Name()
	if name == "" || strings.ContainsAny(name, " \t\n") {
		panic(fmt.Sprintf("flows: bad flow name %q", name))
	}
	if registry.flows == nil {
		registry.flows = map[string]Flow{}
	}
	if _, dup := registry.flows[name]; dup {
		panic(fmt.Sprintf("flows: flow %q registered twice", name))
	}
	registry.flows[name] = f
}

// Lookup returns the flow registered under name ("" is the default flow). An unknown
// name is an error wrapping ErrUnknownFlow that lists the registered flows.
func Lookup(name string) (Flow, error) {
	if name == "" {
		name = DefaultName
	}
	registry.mu.RLock()
	f, ok := registry.flows[name]
	registry.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w %q (registered: %s)", ErrUnknownFlow, name, strings.Join(Names(), ", "))
	}
	return f, nil
}

// Names lists the registered flows, sorted.
func Names() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	out := make([]string, 0, len(registry.flows))
	for n := range registry.flows {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Default is the default flow.
func Default() Flow {
	f, err := Lookup(DefaultName)
	if err != nil {
		panic(err)
	}
	return f
}

// Flows returns the registered flows, sorted by name.
func Flows() []Flow {
	names := Names()
	out := make([]Flow, 0, len(names))
	for _, n := range names {
		f, _ := Lookup(n)
		out = append(out, f)
	}
	return slices.Clip(out)
}
