package recursion

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/open"
)

// proveChild makes an xmss-aggregate proof of n generated signers at rate.
func proveChild(t testing.TB, n, rate int, seed uint64) flows.Proved {
	t.Helper()
	in, err := aggregate.Flow.Generate(n, seed)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flows.Prove(context.Background(), flows.Request{Flow: aggregate.Flow, Input: in, LogInvRate: rate}, flows.ProveOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// childWithValues proves a child and computes the values its merge prover supplies.
func childWithValues(t testing.TB, n, rate int, seed uint64) (flows.Proved, ChildValues) {
	t.Helper()
	p := proveChild(t, n, rate, seed)
	v, err := ChildValuesOf(p.Proof, p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	return p, v
}

func TestMeasureSmallChild(t *testing.T) {
	p := proveChild(t, 4, 1, 7)
	l, err := Measure(p.Proof, p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := open.DeriveConfig(l.Shape.StackLog, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The recorded openings are the profile's, and every transcript compression is
	// attributed to exactly one stage (or to the label's constant prefix).
	if got, want := l.Queries(), cfg.Queries; !slices.Equal(got, want) {
		t.Fatalf("queries per level %v, profile %v", got, want)
	}
	sum := l.TranscriptConstant
	for _, s := range l.Stages {
		if s.Name != "merkle" {
			sum += s.Compress
		}
	}
	if sum != l.TranscriptTotal {
		t.Fatalf("stages account for %d transcript compressions, the transcript ran %d", sum, l.TranscriptTotal)
	}
	// The statement: a length frame and 24-byte chunks of label, message, epoch,
	// count and the keys.
	ag, _ := aggregate.StatementOf(p.Statement)
	if want := 1 + (len(ag.AbsorbBytes())+23)/24; l.TranscriptStatement != want {
		t.Fatalf("statement absorbed in %d compressions, want %d", l.TranscriptStatement, want)
	}
	// Level 0 opens 64-word leaves (8 blocks, fewer when its lanes are short),
	// later levels 24-word leaves (3 blocks).
	for i, lv := range l.Levels {
		want := 3
		if i == 0 {
			want = 8 - (64-l.Shape.Lanes)/8
		}
		if lv.LeafBlocks != want {
			t.Fatalf("level %d: %d leaf blocks, want %d", i, lv.LeafBlocks, want)
		}
	}
	var b strings.Builder
	l.WriteTable(&b)
	t.Log("\n" + b.String())
}

func TestMeasureRefusesBadProofs(t *testing.T) {
	p := proveChild(t, 4, 1, 8)
	bad := *p.Proof
	bad.Stream = append(bad.Stream[:0:0], p.Proof.Stream...)
	bad.Stream[len(bad.Stream)/2] = bad.Stream[len(bad.Stream)/2].Add(bad.Stream[0].Add(bad.Stream[1]).Add(bad.Stream[2]))
	if bad.Stream[len(bad.Stream)/2] == p.Proof.Stream[len(p.Proof.Stream)/2] {
		t.Fatal("the mutation changed nothing")
	}
	if _, err := Measure(&bad, p.Statement); err == nil {
		t.Fatal("a tampered proof was measured")
	}
	other := p.Statement
	other.Flow = flows.Batch.Name()
	if _, err := Measure(p.Proof, other); !errors.Is(err, ErrNotAggregate) {
		t.Fatalf("a batch statement: %v", err)
	}
}

// TestLedgerTable prints the ledger of one child of LEANPIPE_LEDGER signers (e.g.
// 200) at rates 1..4: the figures docs/recursion.md quotes. Heavy: only on request.
func TestLedgerTable(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LEANPIPE_LEDGER"))
	if n == 0 {
		t.Skip("LEANPIPE_LEDGER=N prints the ledger of an N-signature child at rates 1..4")
	}
	for rate := 1; rate <= 4; rate++ {
		p := proveChild(t, n, rate, 1)
		l, err := Measure(p.Proof, p.Statement)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		l.WriteTable(&b)
		t.Logf("proof %d bytes (wire)\n%s", len(flows.EncodeProof(p.Proof, flows.FormatWire)), b.String())
	}
}
