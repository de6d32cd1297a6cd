package main

// A second flow, registered only in this test binary, shows that a flow plugs into
// the engine, `leanpipe run`, `serve` and `verify` through the registry alone: a toy
// Boolean R1CS circuit (2^13 columns; not BLAKE2s) proved by the same commit,
// zerocheck, lincheck, ring-switch and opening stages as the batch flow. Nothing
// outside this file knows it.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/graph"
)

// toyInput is one 64-bit word per instance.
type toyInput []uint64

func (t toyInput) Len() int { return len(t) }

const (
	toyLogSize = 13
	toyX       = 64  // the 64 input columns
	toyRows    = 128 // first product row
)

// toyCircuit: inputs x_0..x_63; layer 1: p_i = x_i·x_(i+1); layer 2: q_i =
// (p_i + x_(i+3))·(p_(i+7) + 1); then 40 more layers of the same shape over the
// previous two layers, so the block has a few thousand constrained rows.
func toyCircuit() *circuit.Circuit {
	b := circuit.NewBuilder("toy", toyLogSize, 0)
	b.Input("x", toyX, 64)
	prev2 := make([]circuit.Wire, 64)
	for i := range prev2 {
		prev2[i] = b.Col(toyX + i)
	}
	prev := make([]circuit.Wire, 64)
	row := toyRows
	for i := range prev {
		prev[i] = b.Product(row, prev2[i], prev2[(i+1)%64])
		row++
	}
	for layer := 0; layer < 42; layer++ {
		next := make([]circuit.Wire, 64)
		for i := range next {
			x := b.Xor(prev[i], prev2[(i+3)%64])
			y := b.Xor(prev[(i+7)%64], b.One())
			next[i] = b.Product(row, x, y)
			row++
		}
		prev2, prev = prev, next
	}
	return b.Compile()
}

// toyFill writes the packed witness, A·w and B·w: 64 instances at a time,
// bit-sliced through Solve, then packed into their slots. Slots past the input hold
// the instance of x = 0 (every padding slot the same instance).
func toyFill(c *circuit.Circuit) func(graph.Workers, flows.Input, int, []field.K, []field.K, []field.K) error {
	return func(w graph.Workers, in flows.Input, nLog int, wit, a, b []field.K) error {
		xs, ok := in.(toyInput)
		if !ok {
			return fmt.Errorf("toy: input %T", in)
		}
		size := c.Size()
		slots := 1 << nLog
		groups := (slots + 63) / 64
		var wg [3][]uint64
		for i := range wg {
			wg[i] = make([]uint64, size)
		}
		packed := make([]field.K, size)
		for g := range groups {
			clear(wg[0])
			wg[0][c.ConstCol()] = ^uint64(0)
			for j := range 64 {
				s := 64*g + j
				var x uint64
				if s < len(xs) {
					x = xs[s]
				}
				for i := range 64 {
					wg[0][toyX+i] |= (x >> i & 1) << j
				}
			}
			c.Solve(wg[0], wg[1], wg[2])
			// Group g's slots are words [g·size, (g+1)·size); a batch of fewer than
			// 64 slots keeps the first ones.
			lo, hi := g*size, min((g+1)*size, slots*size/64)
			for i, dst := range [][]field.K{wit, a, b} {
				c.PackRows(packed, wg[i])
				copy(dst[lo:hi], packed)
			}
		}
		return nil
	}
}

var toyFlow = func() *flows.Flock {
	c := toyCircuit()
	return flows.NewFlock(flows.FlockSpec{
		Name: "toy-r1cs", Label: "leanpipe-toy-r1cs", Summary: "a toy Boolean R1CS circuit (test only)",
		Circuit: c, MaxN: 1 << 12, InputBytes: 8,
		Generate: func(n int, seed uint64) (flows.Input, error) {
			r := rand.New(rand.NewPCG(seed, 7))
			in := make(toyInput, n)
			for i := range in {
				in[i] = r.Uint64()
			}
			return in, nil
		},
		Decode: func(data []byte) (flows.Input, error) {
			if len(data) == 0 || len(data)%8 != 0 {
				return nil, fmt.Errorf("%w: toy input of %d bytes", flows.ErrInput, len(data))
			}
			in := make(toyInput, len(data)/8)
			for i := range in {
				in[i] = binary.LittleEndian.Uint64(data[8*i:])
			}
			return in, nil
		},
		FromValue: func(v any) (flows.Input, error) {
			if x, ok := v.([]uint64); ok {
				return toyInput(x), nil
			}
			return nil, fmt.Errorf("%w: toy takes []uint64", flows.ErrInput)
		},
		FileN: func(size int64) (int, error) {
			if size <= 0 || size%8 != 0 {
				return 0, fmt.Errorf("%w: toy input of %d bytes", flows.ErrInput, size)
			}
			return int(size / 8), nil
		},
		Fill: toyFill(c),
	})
}()

func init() { flows.Register(toyFlow) }

// TestToyFlowEngine: the toy flow proves through the engine at 1 and 2 cores and on
// the direct path with identical bytes, verifies, and rejects a tampered proof and
// the batch flow's statement.
func TestToyFlowEngine(t *testing.T) {
	in, err := toyFlow.Generate(100, 3)
	if err != nil {
		t.Fatal(err)
	}
	req := flows.Request{Flow: toyFlow, Input: in, LogInvRate: 1}
	var want []byte
	for _, cores := range []int{1, 2} {
		e, err := flows.NewEngine(flows.EngineOptions{Cores: cores})
		if err != nil {
			t.Fatal(err)
		}
		p, err := e.Prove(context.Background(), req)
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := p.Proof.MarshalWire()
		if want == nil {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Fatalf("%d cores: proof differs", cores)
		}
		if p.Shape.LogInstance != toyLogSize || len(p.Spans) != 7 {
			t.Fatalf("shape %+v, %d spans", p.Shape, len(p.Spans))
		}
	}
	direct, err := flows.Prove(context.Background(), req, flows.ProveOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(direct.Proof.MarshalWire(), want) {
		t.Fatal("direct path and engine disagree")
	}
	meta := flows.NewMetaFor(toyFlow, direct.Statement, flows.FormatWire)
	if _, err := flows.VerifyBytes(want, meta); err != nil {
		t.Fatalf("toy proof rejected: %v", err)
	}
	bad := bytes.Clone(want)
	bad[40] ^= 1
	if _, err := flows.VerifyBytes(bad, meta); err == nil {
		t.Fatal("tampered toy proof accepted")
	}
	other := meta
	other.Flow, other.Label = flows.Name, flows.Label
	if _, err := flows.VerifyBytes(want, other); err == nil {
		t.Fatal("toy proof accepted as a batch proof")
	}
	more := meta
	more.N = 200 // 256 slots, not 128
	if _, err := flows.VerifyBytes(want, more); err == nil {
		t.Fatal("toy proof accepted for another instance count")
	}
}

// TestToyFlowRun: a run config naming the toy flow proves and verifies its leaves,
// and `verify` accepts them from their PROOF.json.
func TestToyFlowRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cfg := filepath.Join(dir, "toy.yaml")
	os.WriteFile(cfg, []byte("flow: toy-r1cs\nleaves: 2\nbatch: 70\noutput: "+out+"\n"), 0o644)
	if code, stdout, stderr := run(t, "run", cfg); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for i := range 2 {
		path := filepath.Join(out, fmt.Sprintf("leaf-%04d.proof.bin", i))
		mb, err := os.ReadFile(path + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var m flows.Meta
		if err := json.Unmarshal(mb, &m); err != nil || m.Flow != "toy-r1cs" || m.Label != "leanpipe-toy-r1cs" || m.N != 70 {
			t.Fatalf("leaf %d metadata %s (%v)", i, mb, err)
		}
		if code, stdout, _ := run(t, "verify", path); code != 0 || !accepted(stdout) {
			t.Fatalf("verify leaf %d: %d %q", i, code, stdout)
		}
	}
}

// TestToyFlowServe: serve proves a toy job, a toy job from an input file and a batch
// job side by side; a job naming an unknown flow fails with the registered flows
// listed, and the stream goes on.
func TestToyFlowServe(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "x.toy")
	data := make([]byte, 8*33)
	for i := range data {
		data[i] = byte(i * 7)
	}
	os.WriteFile(input, data, 0o644)
	jobs := `{"id":"t1","flow":"toy-r1cs","n":90,"seed":2}
{"id":"nope","flow":"keccak","n":4}
{"id":"b1","n":12}
{"id":"t2","flow":"toy-r1cs","input":"` + input + `"}
`
	var o, e bytes.Buffer
	if code := executeIn([]string{"serve", "--out", dir, "--workers", "2"}, strings.NewReader(jobs), &o, &e); code != 0 {
		t.Fatalf("serve: exit %d: %s", code, e.String())
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 result lines, got %q", o.String())
	}
	var res []map[string]any
	for _, l := range lines {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		res = append(res, r)
	}
	for i, id := range []string{"t1", "nope", "b1", "t2"} {
		if res[i]["id"] != id || res[i]["ok"] != (id != "nope") {
			t.Fatalf("result %d: %v", i, res[i])
		}
	}
	msg, _ := res[1]["error"].(string)
	if !strings.Contains(msg, `unknown flow "keccak"`) || !strings.Contains(msg, "blake2s-batch") || !strings.Contains(msg, "toy-r1cs") {
		t.Fatalf("unknown-flow error %q does not list the registered flows", msg)
	}
	if res[0]["flow"] != "toy-r1cs" || res[2]["flow"] != flows.Name || res[3]["n"] != float64(33) {
		t.Fatalf("results %v", res)
	}
	for _, id := range []string{"t1", "b1", "t2"} {
		if code, out, _ := run(t, "verify", filepath.Join(dir, id+".proof.bin")); code != 0 || !accepted(out) {
			t.Fatalf("verify %s: %d %q", id, code, out)
		}
	}
}

// TestUnknownFlowIsUsageError: --flow and flow: name only registered flows; the
// error lists them and exits 2.
func TestUnknownFlowIsUsageError(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bad.yaml")
	os.WriteFile(cfg, []byte("flow: keccak\n"), 0o644)
	for _, args := range [][]string{
		{"prove", "--flow", "keccak", "--n", "4", "--out", filepath.Join(dir, "p.bin")},
		{"bench", "--flow", "keccak", "--log-n", "3"},
		{"serve", "--flow", "keccak", "--out", dir},
		{"run", cfg},
	} {
		code, _, stderr := run(t, args...)
		if code != 2 || !strings.Contains(stderr, "keccak") || !strings.Contains(stderr, "toy-r1cs") || !strings.Contains(stderr, "blake2s-batch") {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if code, stdout, _ := run(t, "flows"); code != 0 || !strings.Contains(stdout, "toy-r1cs") || !strings.Contains(stdout, "blake2s-batch") {
		t.Fatalf("flows: %d %q", code, stdout)
	}
}
