package recursion

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"github.com/leanpipe/leanpipe/merkle"
)

// The Q0 segment alone, proved as an ordinary Flock batch: the go/no-go measurement of
// docs/recursion.md §4.2. Its blocks' inputs are random (a block asserts nothing by
// itself; in a merge its root, eq table and point are pinned by wiring claims), so
// this measures the segment's proving cost, not a statement.

type queryBatch struct{ ins []QueryInput }

func (q *queryBatch) Len() int { return len(q.ins) }

func randomQueries(qb *QueryBlock, n int, seed uint64) *queryBatch {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	eq := make([]field.E, RowWords)
	for i := range eq {
		eq[i] = randomE(r)
	}
	point := make([]field.E, qb.PointLen)
	for i := range point {
		point[i] = randomE(r)
	}
	ins := make([]QueryInput, n)
	for i := range ins {
		row := make([]uint64, RowWords)
		for k := range row {
			row[k] = r.Uint64()
		}
		path := make([]merkle.Digest, qb.Depth)
		for k := range path {
			for b := range path[k] {
				path[k][b] = byte(r.Uint32())
			}
		}
		ins[i] = QueryInput{Index: r.IntN(1 << qb.Depth), Row: row, Path: path, Eq: eq, Weight: randomE(r), Point: point}
	}
	return &queryBatch{ins}
}

var errNoFile = errors.New("recursion: the Q0 test segment takes no input files")

func querySegmentFlow(qb *QueryBlock) *flows.Flock {
	return flows.NewFlock(flows.FlockSpec{
		Name: "recursion-q0-test", Label: "leanpipe-recursion-q0-test", Summary: "level-0 query blocks (test)",
		Circuit: qb.Circuit, MaxN: 1 << 10, InputBytes: 1 << 10,
		Generate:  func(n int, seed uint64) (flows.Input, error) { return randomQueries(qb, n, seed), nil },
		Decode:    func([]byte) (flows.Input, error) { return nil, errNoFile },
		FromValue: func(any) (flows.Input, error) { return nil, errNoFile },
		FileN:     func(int64) (int, error) { return 0, errNoFile },
		Fill: func(w graph.Workers, fin flows.Input, nLog int, wit, a, b []field.K) error {
			in := fin.(*queryBatch)
			return fillSlots(qb.Circuit, in.Len(), func(v []uint64, lane uint, s int) error {
				return qb.Set(v, lane, &in.ins[s])
			})(w, nLog, wit, a, b)
		},
	})
}

func proveSegment(t testing.TB, f *flows.Flock, n, rate, workers int) (flows.Proved, time.Duration) {
	t.Helper()
	in, err := f.Generate(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	p, err := flows.Prove(context.Background(), flows.Request{Flow: f, Input: in, LogInvRate: rate}, flows.ProveOptions{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return p, time.Since(t0)
}

func TestQuerySegmentProves(t *testing.T) {
	f := querySegmentFlow(testBlock())
	p, _ := proveSegment(t, f, 10, 1, 2)
	if _, err := f.Verify(p.Proof, p.Statement); err != nil {
		t.Fatal(err)
	}
	// Proof bytes do not depend on the workers.
	p1, _ := proveSegment(t, f, 10, 1, 1)
	if a, b := flows.EncodeProof(p.Proof, flows.FormatWire), flows.EncodeProof(p1.Proof, flows.FormatWire); string(a) != string(b) {
		t.Fatal("1 and 2 workers gave different proofs")
	}
	bad := *p.Proof
	bad.Stream = append(bad.Stream[:0:0], p.Proof.Stream...)
	bad.Stream[40] = bad.Stream[40].Add(field.One)
	if _, err := f.Verify(&bad, p.Statement); err == nil {
		t.Fatal("a changed scalar verified")
	}
}

// TestQuerySegmentCost proves LEANPIPE_Q0 level-0 query blocks of a rate-2
// 200-signature child (path depth 19, induced point of 17 coordinates) at 1 and 2
// workers and logs prove time, proof size and peak RSS: the figures docs/recursion.md
// quotes. Heavy: only on request.
func TestQuerySegmentCost(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LEANPIPE_Q0"))
	if n == 0 {
		t.Skip("LEANPIPE_Q0=N proves N full-size level-0 query blocks (e.g. 112, a rate-2 child's)")
	}
	depth, pointLen := 19, 17
	if v := os.Getenv("LEANPIPE_Q0_DEPTH"); v != "" {
		depth, _ = strconv.Atoi(v)
		pointLen = depth - 2
	}
	t0 := time.Now()
	qb := NewQueryBlock(depth, pointLen)
	t.Logf("block: depth %d, point %d, %d rows (inputs and the constant included) + %d inputs of 2^%d; built in %v",
		depth, pointLen, qb.NumRows(), len(qb.Inputs()), QueryLogSize, time.Since(t0).Round(time.Millisecond))
	f := querySegmentFlow(qb)
	for _, workers := range []int{1, 2, 1, 2} {
		p, d := proveSegment(t, f, n, 1, workers)
		var stages string
		for _, s := range p.Spans {
			stages += fmt.Sprintf(" %s %v", s.Name, s.Duration.Round(time.Millisecond))
		}
		v0 := time.Now()
		if _, err := f.Verify(p.Proof, p.Statement); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d blocks, %d workers: prove %v (%s), verify %v, proof %d bytes, peak RSS %d MiB",
			n, workers, d.Round(time.Millisecond), stages, time.Since(v0).Round(time.Millisecond),
			len(flows.EncodeProof(p.Proof, flows.FormatWire)), rusage.PeakRSS()>>20)
	}
}
