package recursion

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/leanpipe/leanpipe/xmss"
)

// Pins and benchmarks of the claim batches' provers: the transcript bytes of a
// fixed-seed batch are fixed (a faster prover writes the same proof), at every worker
// count.

// pinnedClaims draws n true claims on c from a fixed seed (not LEANPIPE_SEED: the
// pinned hashes depend on it), values by the circuit's tensor evaluation.
func pinnedClaims(c *circuit.Circuit, n int, seed uint64) []MatrixClaim {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	claims := make([]MatrixClaim, n)
	for i := range claims {
		cl := MatrixClaim{Row: randomWeight(r, c.LogSize()), Col: randomWeight(r, c.LogSize())}
		cl.VA, cl.VB = c.BilinearTensor(cl.Row, cl.Col)
		claims[i] = cl
	}
	return claims
}

// tinyCircuit is a 2^logSize-column circuit (logSize ≥ 6): 8 inputs, then a chain of
// products and XORs over the rest of the block.
func tinyCircuit(logSize int) *circuit.Circuit {
	b := circuit.NewBuilder("tiny", logSize, 0)
	b.Input("x", 8, 8)
	prev := []circuit.Wire{b.Col(8), b.Col(9), b.Col(10)}
	for row := 16; row < 1<<logSize-3; row++ {
		x, y := prev[row%3], prev[(row+1)%3]
		prev[row%3] = b.Product(row, b.Xor(x, b.One()), b.Xor(y, b.Col(8+row%8)))
	}
	return b.Compile()
}

// batchDigest runs the batch on the given workers, keeping at most stored row
// vectors, and returns the SHA-256 of its proof (wire form) and of the claim it
// returns, the proof and the claim.
func batchDigest(t testing.TB, c *circuit.Circuit, claims []MatrixClaim, workers, stored int, scratch *BatchScratch) (string, *transcript.Proof, MatrixClaim) {
	t.Helper()
	p := transcript.NewProver(claimsLabel, nil)
	out, err := BatchMatrixClaimsWith(p, c, claims, BatchOptions{Workers: par.New(nil, workers), StoredRows: stored, Scratch: scratch})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	h.Write(p.Proof().MarshalWire())
	for _, w := range [...]Weight{out.Row, out.Col} {
		for _, x := range append(append([]field.E(nil), w.Low...), w.High...) {
			b := x.Bytes()
			h.Write(b[:])
		}
	}
	for _, x := range [...]field.E{out.VA, out.VB} {
		b := x.Bytes()
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil)), p.Proof(), out
}

// TestBatchMatrixClaimsPinned: the batch's proof and result on fixed claims are the
// ones pinned (taken before the prover was rewritten), on 1, 2 and 3 workers
// (claims walked side by side, or one claim on the circuit's segments) and keeping
// one, two or all row vectors (the others walked twice), with and without a reused
// scratch; the result
// verifies and is true, and a batch made for a claim with a changed value fails the
// verifier or the native check.
func TestBatchMatrixClaimsPinned(t *testing.T) {
	cases := []struct {
		name string
		c    func() *circuit.Circuit
		n    int
		want string
		xmss bool
	}{
		{"tiny6/2", func() *circuit.Circuit { return tinyCircuit(6) }, 2, "8bfc03492ddf0e9963e9d77212f935829a8a22e77f169c61b8deef532d7aeda1", false},
		{"tiny7/3", func() *circuit.Circuit { return tinyCircuit(7) }, 3, "67ef8015ccf65bf312c62ee46dd6d4fd27cdadddc2ce48291911023cad0416ba", false},
		{"forge10/2", func() *circuit.Circuit { return smallCircuit(3) }, 2, "4ccf5aef23b6b953e68ed4006b4d75352d42f059dafeb35f7f1902d55bbedbb7", false},
		{"blake2s/1", circuit.BLAKE2s, 1, "0a9fe17018072f43e0d5b52801f3c6f946c4271fab523eeaf6589f2d58996c95", false},
		{"blake2s/3", circuit.BLAKE2s, 3, "9a86475af3c995949ba460463d7d5a46e89fcbc193764e1a9e1e5caf0f13aca0", false},
		{"xmss/2", func() *circuit.Circuit { return aggregate.New().Circuit }, 2, "45e276b59370e1b659856d12b8933fe8cacf4bc997ea84eaaf68ac4148f00039", true},
		{"xmss/1", func() *circuit.Circuit { return aggregate.New().Circuit }, 1, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.xmss && testing.Short() {
				t.Skip("builds the xmss-aggregate circuit")
			}
			c := tc.c()
			claims := pinnedClaims(c, tc.n, 0x5eed+uint64(tc.n))
			first := ""
			// The scratch's tables are reused dirty from run to run.
			scratch := new(BatchScratch)
			for i, run := range [][2]int{{1, 0}, {2, 0}, {3, 0}, {1, 1}, {2, 1}, {2, 8}, {1, 8}, {2, 0}} {
				workers := run[0]
				sc := scratch
				if i%2 == 1 {
					sc = nil
				}
				got, proof, out := batchDigest(t, c, claims, workers, run[1], sc)
				if tc.want != "" && got != tc.want {
					t.Fatalf("%s on %d workers: proof digest %s, pinned %s", tc.name, workers, got, tc.want)
				}
				if first == "" {
					first = got
				} else if got != first {
					t.Fatalf("%s on %d workers: proof digest %s, on 1 worker %s", tc.name, workers, got, first)
				}
				v := transcript.NewVerifier(proof, claimsLabel, nil)
				vout, err := VerifyMatrixClaims(v, c.LogSize(), claims)
				if err == nil {
					err = v.Finish()
				}
				if err != nil {
					t.Fatalf("%s on %d workers: %v", tc.name, workers, err)
				}
				if vout.VA != out.VA || vout.VB != out.VB {
					t.Fatalf("%s on %d workers: prover and verifier disagree on the batched claim", tc.name, workers)
				}
				if err := CheckMatrixClaim(c, out); err != nil {
					t.Fatalf("%s on %d workers: the batched claim: %v", tc.name, workers, err)
				}
			}
			// A claim with a changed value, batched as given: the verifier or the
			// native check refuses the result.
			lie := append([]MatrixClaim(nil), claims...)
			lie[len(lie)-1].VB = lie[len(lie)-1].VB.Add(field.One)
			_, proof, _ := batchDigest(t, c, lie, 2, 0, scratch)
			v := transcript.NewVerifier(proof, claimsLabel, nil)
			vout, err := VerifyMatrixClaims(v, c.LogSize(), lie)
			if err == nil {
				err = CheckMatrixClaim(c, vout)
			}
			if !errors.Is(err, ErrBatch) && !errors.Is(err, ErrClaim) {
				t.Fatalf("%s: a batch of a false claim: %v", tc.name, err)
			}
		})
	}
}

// peakHeap samples the live heap every millisecond while it runs and reports the
// largest value seen above the heap at its start.
type peakHeap struct {
	stop chan struct{}
	wg   sync.WaitGroup
	base uint64
	peak uint64
}

func heapLive() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startPeak() *peakHeap {
	runtime.GC()
	p := &peakHeap{stop: make(chan struct{}), base: heapLive()}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if v := heapLive(); v > p.peak {
				p.peak = v
			}
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// mb returns the peak above the start, in MB (10^6 bytes).
func (p *peakHeap) mb() float64 {
	close(p.stop)
	p.wg.Wait()
	if p.peak < p.base {
		return 0
	}
	return float64(p.peak-p.base) / 1e6
}

// BenchmarkBatchMatrixClaims times BatchMatrixClaimsOn of two and four true claims
// with lincheck-shaped weights (64 low values ⊗ eq over 15 coordinates) on the
// xmss-aggregate circuit (L = 21), on 1 and 2 workers (and GOMAXPROCS). peak-MB is
// the live heap's peak above its level before the batch (sampled each millisecond;
// the circuit's shelved column vector, made by the warm-up, is not in it, nor the
// row vectors a scratch keeps), cpu-ms the process's CPU time; "scratch" runs keep
// their row vectors in a BatchScratch from one batch to the next.
func BenchmarkBatchMatrixClaims(b *testing.B) {
	skipProofs(b, "builds the xmss-aggregate circuit")
	c := aggregate.New().Circuit
	claims := pinnedClaims(c, 4, 0x5eed+4)
	// A batch on two workers first: the circuit's walk segments are planned once
	// per process (as a merge's lincheck has done before its batch).
	if _, err := BatchMatrixClaimsOn(transcript.NewProver(claimsLabel, nil), c, claims, par.New(nil, 2)); err != nil {
		b.Fatal(err)
	}
	for _, run := range [][3]int{{2, 1, 0}, {2, 2, 0}, {2, 1, 1}, {2, 2, 1}, {4, 1, 0}, {4, 2, 0}} {
		n, procs := run[0], run[1]
		var scratch *BatchScratch
		name := fmt.Sprintf("claims=%d/workers=%d", n, procs)
		if run[2] == 1 {
			scratch = new(BatchScratch)
			name += "/scratch"
		}
		b.Run(name, func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			b.ReportAllocs()
			var peak float64
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				p := startPeak()
				t0 := rusage.Process()
				b.StartTimer()
				opts := BatchOptions{Workers: par.New(nil, procs), Scratch: scratch}
				if _, err := BatchMatrixClaimsWith(transcript.NewProver(claimsLabel, nil), c, claims[:n], opts); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cpu += rusage.Process() - t0
				peak = max(peak, p.mb())
				b.StartTimer()
			}
			b.ReportMetric(peak, "peak-MB")
			b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkBatchKeyClaims times BatchKeyClaims of two children's key claims lifted to
// a parent of 200 and 1,600 keys (two children of half each), at 1 and 2 workers.
func BenchmarkBatchKeyClaims(b *testing.B) {
	for _, n := range []int{200, 1600} {
		kt, claims := keyBatchFixture(b, n, []int{n / 2, n / 2})
		for _, procs := range []int{1, 2} {
			b.Run(fmt.Sprintf("keys=%d/workers=%d", n, procs), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				b.ReportAllocs()
				var peak float64
				for b.Loop() {
					b.StopTimer()
					p := startPeak()
					b.StartTimer()
					if _, _, err := BatchKeyClaims(transcript.NewProver(claimsLabel, nil), kt, claims); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					peak = max(peak, p.mb())
					b.StartTimer()
				}
				b.ReportMetric(peak, "peak-MB")
			})
		}
	}
}

// keyBatchFixture is a parent of n fixed keys and its children's key claims lifted
// to it (children of the given sizes, in order).
func keyBatchFixture(t testing.TB, n int, sizes []int) (KeyTable, []TableClaim) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(n), 7))
	var msg xmss.Message
	msg[1] = 5
	keys := randomKeys(r, n)
	parent := statementOf(t, aggregate.Aggregate{Message: msg, Epoch: 3, PublicKeys: keys})
	kt, err := KeyTableOf(parent)
	if err != nil {
		t.Fatal(err)
	}
	var claims []TableClaim
	off := 0
	for _, k := range sizes {
		child := statementOf(t, aggregate.Aggregate{Message: msg, Epoch: 3, PublicKeys: keys[off : off+k]})
		claims = append(claims, LiftKeyClaim(childKeyClaim(t, r, child), off, k))
		off += k
	}
	return kt, claims
}

// TestBatchKeyClaimsPinned: the key batch's proof and result on fixed claims are the
// ones pinned (taken before the prover was rewritten); the result verifies and the
// native evaluation accepts it.
func TestBatchKeyClaimsPinned(t *testing.T) {
	for _, tc := range []struct {
		n     int
		sizes []int
		want  string
	}{
		{19, []int{5, 11, 3}, "293e325a60680c1c3f508748ef9e65962038391662d91bce567582467a3bd694"},
		{200, []int{100, 100}, "125f340fd58392aa74fd302a8eb2234d7ca0e4bfc447e938fd94e699ff777368"},
		{300, []int{7, 200, 90}, "77962a2ca73467f1f3ac430fdb8ccdfc0bfe0a39905d339fc3f627ab8f3773c6"},
	} {
		kt, claims := keyBatchFixture(t, tc.n, tc.sizes)
		p := transcript.NewProver(claimsLabel, nil)
		pt, v, err := BatchKeyClaims(p, kt, claims)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		h.Write(p.Proof().MarshalWire())
		for _, x := range append(pt, v) {
			b := x.Bytes()
			h.Write(b[:])
		}
		got := hex.EncodeToString(h.Sum(nil))
		t.Logf("%d keys: %s", tc.n, got)
		if tc.want != "" && got != tc.want {
			t.Fatalf("%d keys: proof digest %s, pinned %s", tc.n, got, tc.want)
		}
		vpt, vv, err := VerifyKeyClaims(transcript.NewVerifier(p.Proof(), claimsLabel, nil), kt.T.W.Log, kt.SlotBits, claims)
		if err != nil {
			t.Fatalf("%d keys: %v", tc.n, err)
		}
		if vv != v || len(vpt) != len(pt) {
			t.Fatalf("%d keys: prover and verifier disagree", tc.n)
		}
		if err := CheckTableEval(kt, vpt, vv); err != nil {
			t.Fatalf("%d keys: %v", tc.n, err)
		}
	}
}

// A batch on cancelled workers returns their error, not a claim.
func TestBatchMatrixClaimsCancelled(t *testing.T) {
	c := circuit.BLAKE2s()
	claims := pinnedClaims(c, 2, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := BatchMatrixClaimsOn(transcript.NewProver(claimsLabel, nil), c, claims, par.New(ctx, 2))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled workers: %v", err)
	}
}
