package transcript

import (
	"encoding/hex"
	"slices"
	"strconv"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/vectors"
)

type katOp struct {
	Op          string    `json:"op"`
	LabelHex    string    `json:"label_hex"`
	DataHex     string    `json:"data_hex"`
	Value       []string  `json:"value"`
	Out         any       `json:"out"`
	Nonce       []string  `json:"nonce"`
	Bits        int       `json:"bits"`
	BlockLength int       `json:"block_length"`
	Count       int       `json:"count"`
	State       [4]string `json:"state"`
}

func parseK(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatalf("bad K %q: %v", s, err)
	}
	return v
}

func parseE(t *testing.T, s []string) field.E {
	t.Helper()
	if len(s) != 3 {
		t.Fatalf("bad E %v", s)
	}
	return field.E{C0: field.K(parseK(t, s[0])), C1: field.K(parseK(t, s[1])), C2: field.K(parseK(t, s[2]))}
}

func parseState(t *testing.T, s [4]string) State {
	return State{parseK(t, s[0]), parseK(t, s[1]), parseK(t, s[2]), parseK(t, s[3])}
}

func outE(t *testing.T, v any) field.E {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("out %v is not an E", v)
	}
	s := make([]string, len(l))
	for i := range l {
		s[i], _ = l[i].(string)
	}
	return parseE(t, s)
}

func outInts(t *testing.T, v any) []int {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("out %v is not a list", v)
	}
	out := make([]int, len(l))
	for i := range l {
		f, ok := l[i].(float64)
		if !ok {
			t.Fatalf("out %v is not a list of integers", v)
		}
		out[i] = int(f)
	}
	return out
}

// TestKATTranscript replays the reference script on a Prover, and the same script on a
// Verifier fed the script's nonces, comparing the state after every operation.
func TestKATTranscript(t *testing.T) {
	var ops []katOp
	vectors.KAT(t, "transcript", &ops)
	if len(ops) == 0 || ops[0].Op != "new" {
		t.Fatal("transcript KAT must start with new")
	}
	seen := map[string]bool{}
	label, err := hex.DecodeString(ops[0].LabelHex)
	if err != nil {
		t.Fatal(err)
	}
	var nonces []field.E
	for _, op := range ops {
		if op.Op == "grind" {
			nonces = append(nonces, parseE(t, op.Nonce))
		}
	}
	p := NewProver(label, nil)
	v := NewVerifier(&Proof{Stream: nonces}, label, nil)
	for i, op := range ops {
		seen[op.Op] = true
		switch op.Op {
		case "new":
		case "observe":
			p.Observe(parseE(t, op.Value))
			v.Observe(parseE(t, op.Value))
		case "sample":
			want := outE(t, op.Out)
			if got := p.Sample(); got != want {
				t.Fatalf("op %d: prover sample %v, want %v", i, got, want)
			}
			if got := v.Sample(); got != want {
				t.Fatalf("op %d: verifier sample %v, want %v", i, got, want)
			}
		case "absorb_bytes":
			b, err := hex.DecodeString(op.DataHex)
			if err != nil {
				t.Fatal(err)
			}
			p.AbsorbBytes(b)
			v.AbsorbBytes(b)
		case "grind":
			want := parseE(t, op.Nonce)
			if n := p.Grind(op.Bits); (field.E{C0: field.K(n)}) != want {
				t.Fatalf("op %d: nonce %d, want %v", i, n, want)
			}
			if err := v.GrindCheck(op.Bits); err != nil {
				t.Fatalf("op %d: verifier rejects the reference nonce: %v", i, err)
			}
		case "sample_queries":
			want := outInts(t, op.Out)
			if got := p.SampleQueries(op.BlockLength, op.Count); !slices.Equal(got, want) {
				t.Fatalf("op %d: queries %v, want %v", i, got, want)
			}
			if got := v.SampleQueries(op.BlockLength, op.Count); !slices.Equal(got, want) {
				t.Fatalf("op %d: verifier queries %v, want %v", i, got, want)
			}
		default:
			t.Fatalf("op %d: unknown op %q", i, op.Op)
		}
		want := parseState(t, op.State)
		if p.State() != want || v.State() != want {
			t.Fatalf("op %d (%s): state %x / %x, want %x", i, op.Op, p.State(), v.State(), want)
		}
	}
	for _, op := range []string{"new", "observe", "sample", "absorb_bytes", "grind", "sample_queries"} {
		if !seen[op] {
			t.Errorf("KAT script has no %q op", op)
		}
	}
	if err := v.Finish(); err != nil {
		t.Fatal(err)
	}
}
