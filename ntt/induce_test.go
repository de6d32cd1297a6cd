package ntt

import (
	"math/bits"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/par"
)

// InducedTable is the direct per-query expansion of the novel basis.
func TestInducedTableIsExpansion(t *testing.T) {
	rng := testrand.New(t)
	for _, sh := range []struct{ messageLog, rate int }{{0, 1}, {3, 1}, {5, 4}, {8, 2}} {
		logD := sh.messageLog + sh.rate
		p := NewPlan(logD)
		queries := make([]int, 9)
		for i := range queries {
			queries[i] = rng.IntN(1 << logD)
		}
		queries[8] = queries[0] // duplicates add up
		weights := randE(rng, len(queries))
		dst := make([]field.E, 1<<sh.messageLog)
		p.InducedTable(dst, queries, weights, sh.rate, make([]field.E, 1<<logD), par.New(nil, 2))
		want := make([]field.E, len(dst))
		for i, q := range queries {
			x := slowBasis(uint64(q), sh.messageLog)
			for b := range want {
				want[b] = want[b].Add(weights[i].MulK(x[b]))
			}
		}
		for b := range want {
			if dst[b] != want[b] {
				t.Fatalf("%+v b=%d: got %v want %v", sh, b, dst[b], want[b])
			}
		}
	}
}

// The table does not depend on the workers, nor on what the scratch held: shapes
// large enough that the clear, the transpose and the replica sum are all cut into
// several pieces.
func TestInducedTableWorkers(t *testing.T) {
	rng := testrand.New(t)
	for _, sh := range []struct{ messageLog, rate int }{{13, 1}, {12, 2}, {14, 0}} {
		logD := sh.messageLog + sh.rate
		p := NewPlan(logD)
		queries := make([]int, 300)
		for i := range queries {
			queries[i] = rng.IntN(1 << logD)
		}
		weights := randE(rng, len(queries))
		want := make([]field.E, 1<<sh.messageLog)
		p.InducedTable(want, queries, weights, sh.rate, make([]field.E, 1<<logD), par.Serial())
		for _, workers := range []int{2, 3} {
			got := make([]field.E, len(want))
			scratch := randE(rng, 1<<logD)
			p.InducedTable(got, queries, weights, sh.rate, scratch, par.New(nil, workers))
			for b := range want {
				if got[b] != want[b] {
					t.Fatalf("%+v workers %d: entry %d differs", sh, workers, b)
				}
			}
		}
	}
}

// The table's multilinear extension is the verifier's induced weight (KAT).
func TestInducedTableKAT(t *testing.T) {
	var kat []struct {
		MessageLog     int         `json:"message_log"`
		Queries        []int       `json:"queries"`
		QueryWeights   [][3]string `json:"query_weights"`
		Point          [][3]string `json:"point"`
		InducedWeights [3]string   `json:"induced_weight"`
	}
	vectors.KAT(t, "whir_induced_weight", &kat)
	for i, c := range kat {
		w := make([]field.E, len(c.QueryWeights))
		for k := range w {
			w[k] = parseE(t, c.QueryWeights[k])
		}
		pt := make([]field.E, len(c.Point))
		for k := range pt {
			pt[k] = parseE(t, c.Point[k])
		}
		logD := c.MessageLog
		for _, q := range c.Queries {
			logD = max(logD, bits.Len(uint(q)))
		}
		p := NewPlan(logD)
		table := make([]field.E, 1<<c.MessageLog)
		p.InducedTable(table, c.Queries, w, logD-c.MessageLog, make([]field.E, 1<<logD), par.Serial())
		if got, want := field.EvalMLE(table, pt), parseE(t, c.InducedWeights); got != want {
			t.Errorf("case %d: MLE of the induced table %v, KAT %v", i, got, want)
		}
	}
}

// Σ_b table[b]·m_b = Σ_i w_i·c(q_i) against the encoder.
func TestInducedTableIsEncoderTranspose(t *testing.T) {
	rng := testrand.New(t)
	const messageLog, rate = 10, 3
	logD := messageLog + rate
	p := NewPlan(logD)
	msg := randE(rng, 1<<messageLog)
	enc := make([]uint64, 3<<logD)
	p.EncodeE(enc, msg, 0, rate, par.New(nil, 2))
	queries := make([]int, 40)
	weights := randE(rng, len(queries))
	var lhs field.E
	for i := range queries {
		q := rng.IntN(1 << logD)
		queries[i] = q
		lhs = lhs.Add(weights[i].Mul(field.E{C0: field.K(enc[3*q]), C1: field.K(enc[3*q+1]), C2: field.K(enc[3*q+2])}))
	}
	table := make([]field.E, 1<<messageLog)
	p.InducedTable(table, queries, weights, rate, make([]field.E, 1<<logD), par.Serial())
	if rhs := field.InnerProduct(table, msg); lhs != rhs {
		t.Fatalf("Σ w·c(q) = %v, ⟨table, m⟩ = %v", lhs, rhs)
	}
}

// TransposeE, its deep layers region by region and its other layers in pieces on the
// workers, equals the layer-by-layer transpose, for shapes with and without layers
// above the regions, several lanes and start layers.
func TestTransposeEBlocked(t *testing.T) {
	rng := testrand.New(t)
	for _, sh := range []struct{ logD, lanes, start int }{
		{4, 1, 0}, {13, 1, 1}, {14, 1, 0}, {17, 1, 1}, {15, 3, 2}, {12, 2, 12},
	} {
		p := NewPlan(sh.logD)
		v := randE(rng, sh.lanes<<sh.logD)
		want := append([]field.E(nil), v...)
		buf, s := eWords(want), 3*sh.lanes
		for layer := p.logD - 1; layer >= sh.start; layer-- {
			half := (1 << (p.logD - layer - 1)) * s
			for b := range 1 << layer {
				inv(buf[(2*b+1)*half:(2*b+2)*half], buf[2*b*half:(2*b+1)*half], p.twiddle(layer, b))
			}
		}
		for _, workers := range []int{1, 2, 3} {
			got := append([]field.E(nil), v...)
			p.TransposeE(got, sh.start, par.New(nil, workers))
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%+v workers=%d: element %d differs from the layer-by-layer transpose", sh, workers, i)
				}
			}
		}
	}
}
