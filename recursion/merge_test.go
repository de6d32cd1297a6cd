package recursion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
)

// siblingLeaves proves k leaves of n signers each on one message and epoch (signers
// of one generated set, cut in order).
func siblingLeaves(t testing.TB, k, n, rate int, seed uint64) []flows.Proved {
	t.Helper()
	in, err := aggregate.Generate(k*n, seed, "")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]flows.Proved, k)
	for i := range out {
		leaf := &aggregate.Input{Message: in.Message, Epoch: in.Epoch, Signers: in.Signers[i*n : (i+1)*n]}
		fin, err := aggregate.Flow.FromValue(leaf)
		if err != nil {
			t.Fatal(err)
		}
		out[i], err = flows.Prove(context.Background(), flows.Request{Flow: aggregate.Flow, Input: fin, LogInvRate: rate}, flows.ProveOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// leafCut is one leaf of cutLeaves: its signer count and rate.
type leafCut struct{ n, rate int }

// cutLeaves proves one leaf per cut, the signers of one generated set in order, and
// returns them with the set.
func cutLeaves(t testing.TB, seed uint64, cuts []leafCut) ([]flows.Proved, *aggregate.Input) {
	t.Helper()
	total := 0
	for _, c := range cuts {
		total += c.n
	}
	in, err := aggregate.Generate(total, seed, "")
	if err != nil {
		t.Fatal(err)
	}
	var leaves []flows.Proved
	lo := 0
	for _, c := range cuts {
		leaf := &aggregate.Input{Message: in.Message, Epoch: in.Epoch, Signers: in.Signers[lo : lo+c.n]}
		lo += c.n
		fin, err := aggregate.Flow.FromValue(leaf)
		if err != nil {
			t.Fatal(err)
		}
		p, err := flows.Prove(context.Background(), flows.Request{Flow: aggregate.Flow, Input: fin, LogInvRate: c.rate}, flows.ProveOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, p)
	}
	return leaves, in
}

func mergeChildren(ps []flows.Proved) []MergeChild {
	out := make([]MergeChild, len(ps))
	for i, p := range ps {
		out[i] = MergeChild{p.Proof, p.Statement}
	}
	return out
}

func TestMergeTwoLeaves(t *testing.T) {
	skipProofs(t, "proves a 2→1 merge")
	leaves := siblingLeaves(t, 2, 4, 2, 101)
	m, err := Merge(mergeChildren(leaves), 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Verify(); err != nil {
		t.Fatal(err)
	}
	// The two files round-trip.
	js, err := json.Marshal(m.Statement())
	if err != nil {
		t.Fatal(err)
	}
	var st MergeStatement
	if err := json.Unmarshal(js, &st); err != nil {
		t.Fatal(err)
	}
	file := m.ProofBytes()
	if err := VerifyMerged(file, st); err != nil {
		t.Fatal(err)
	}
	one, err := Merge(mergeChildren(leaves), 2, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(one.ProofBytes(), file) {
		t.Fatal("the merged proof depends on the workers")
	}
	t.Logf("statement: %.200s", js)
	t.Logf("2→1: %d keys, proof %d bytes (%d stream scalars), %d interface bytes", len(m.Keys), len(m.Proof.MarshalWire()), len(m.Proof.Stream), len(m.statementBytes()))
	checkMergedLedger(t, m)
}

// checkMergedLedger measures m and checks the ledger against the verification it
// traced: every transcript compression in exactly one stage (or the label's prefix),
// the openings the WHIR profile's, a derived part per child, the stream the proof's.
func checkMergedLedger(t *testing.T, m *Merged) *MergedLedger {
	t.Helper()
	l, err := MeasureMerged(m)
	if err != nil {
		t.Fatal(err)
	}
	sum := l.Trace.Label
	for _, s := range l.Own {
		if s.Name != "merkle" {
			sum += s.Compress
		}
	}
	if sum != l.Trace.Total {
		t.Fatalf("stages account for %d transcript compressions, the verifier ran %d", sum, l.Trace.Total)
	}
	if len(l.Derived) != len(m.Children) || len(l.InterfaceBytes) != len(m.Children) || len(l.Trace.Segments) != len(l.Own)-5 {
		t.Fatalf("ledger of %d derived parts, %d interfaces, %d segments for %d children and %d own stages",
			len(l.Derived), len(l.InterfaceBytes), len(l.Trace.Segments), len(m.Children), len(l.Own))
	}
	if l.Trace.StreamScalars != len(m.Proof.Stream) {
		t.Fatalf("the trace read %d stream scalars, the proof has %d", l.Trace.StreamScalars, len(m.Proof.Stream))
	}
	for i, d := range l.Derived {
		for _, s := range d {
			if s.EE <= 0 {
				t.Fatalf("child %d: %s costs nothing", i, s.Name)
			}
		}
	}
	// A merged proof that does not verify has no ledger.
	bad := *m
	bad.Epoch++
	if _, err := MeasureMerged(&bad); err == nil {
		t.Fatal("a ledger of a merged proof against another epoch")
	}
	var b strings.Builder
	l.WriteTable(&b)
	t.Log("\n" + b.String())
	return l
}

// TestMergeCost reports what one merge costs: LEANPIPE_MERGE=K,S[,R[,REPS]] merges K
// leaves of S signatures (rate 2) at merge rate R (default 2), REPS times (default 2)
// at 1 and 2 workers, then logs the merged proof's ledger (MeasureMerged). A
// measurement, not a check.
func TestMergeCost(t *testing.T) {
	spec := os.Getenv("LEANPIPE_MERGE")
	if spec == "" {
		t.Skip("set LEANPIPE_MERGE=K,S")
	}
	k, s, rate, reps := 0, 0, 2, 2
	if n, _ := fmt.Sscanf(spec, "%d,%d,%d,%d", &k, &s, &rate, &reps); n < 2 {
		t.Fatalf("LEANPIPE_MERGE=%q: want K,S[,R[,REPS]]", spec)
	}
	leaves := siblingLeaves(t, k, s, 2, 303)
	var last *Merged
	defer func() {
		if last != nil {
			checkMergedLedger(t, last)
		}
	}()
	for _, w := range []int{1, 2} {
		for range reps {
			start := time.Now()
			m, err := Merge(mergeChildren(leaves), rate, par.New(nil, w))
			last = m
			if err != nil {
				t.Fatal(err)
			}
			prove := time.Since(start)
			start = time.Now()
			if err := m.Verify(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d→1 of %d signatures at rate %d, %d workers: prove %v, verify %v, proof file %d bytes", k, s, rate, w, prove, time.Since(start), len(m.ProofBytes()))
		}
	}
}

// TestMergeMixedLeaves merges four leaves of different sizes and rates (rate-1 leaves,
// as `prove` makes by default, beside rate-2 ones) at the default rate: their levels
// take different query segments where their block shapes differ; the keys are the
// children's in order and the file is at most 256 KiB.
func TestMergeMixedLeaves(t *testing.T) {
	skipProofs(t, "proves a 4→1 merge")
	leaves, in := cutLeaves(t, 808, []leafCut{{4, 1}, {8, 2}, {3, 2}, {2, 1}})
	m, err := Merge(mergeChildren(leaves), DefaultRate(len(leaves)), par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Verify(); err != nil {
		t.Fatal(err)
	}
	for i, s := range in.Signers {
		if m.Keys[i] != s.PublicKey {
			t.Fatalf("merged key %d is not the children's in order", i)
		}
	}
	if len(m.Keys) != len(in.Signers) {
		t.Fatal("the merged keys are not the children's")
	}
	size := len(m.ProofBytes())
	if size > 256<<10 {
		t.Fatalf("a merged proof of %d bytes (over 256 KiB)", size)
	}
	t.Logf("4→1 of 4 (rate 1), 8, 3 and 2 (rate 1) signatures at rate %d: proof file %d bytes", DefaultRate(len(leaves)), size)
}

// TestMergeSigners: one child and raw signers merge; the signers' keys come last; a
// signer also in the child is refused.
func TestMergeSigners(t *testing.T) {
	skipProofs(t, "proves a leaf and a 2→1 merge")
	in, err := aggregate.Generate(5, 909, "")
	if err != nil {
		t.Fatal(err)
	}
	child := &aggregate.Input{Message: in.Message, Epoch: in.Epoch, Signers: in.Signers[:3]}
	fin, err := aggregate.Flow.FromValue(child)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flows.Prove(context.Background(), flows.Request{Flow: aggregate.Flow, Input: fin, LogInvRate: 2}, flows.ProveOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	raw := &aggregate.Input{Message: in.Message, Epoch: in.Epoch, Signers: in.Signers[3:]}
	m, err := MergeSigners(context.Background(), []MergeChild{{p.Proof, p.Statement}}, raw, DefaultRate(2), par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Verify(); err != nil {
		t.Fatal(err)
	}
	for i, s := range in.Signers {
		if m.Keys[i] != s.PublicKey {
			t.Fatalf("key %d is not in order", i)
		}
	}
	overlap := &aggregate.Input{Message: in.Message, Epoch: in.Epoch, Signers: in.Signers[2:4]}
	if _, err := MergeSigners(context.Background(), []MergeChild{{p.Proof, p.Statement}}, overlap, DefaultRate(2), par.New(nil, 2)); !errors.Is(err, ErrMergeInput) {
		t.Fatalf("a signer also in the child: %v", err)
	}
}
