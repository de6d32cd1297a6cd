package open

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/internal/vectors/hexfield"
	"github.com/leanpipe/leanpipe/par"
)

// KAT decoding (internal/vectors/hexfield).
var (
	hexE = hexfield.E
)

func TestKATWhirConfig(t *testing.T) {
	var kat map[string]struct {
		LogInvRates []int `json:"log_inv_rates"`
		Folds       []int `json:"folds"`
		Queries     []int `json:"queries"`
	}
	vectors.KAT(t, "whir_config", &kat)
	seen := 0
	for logN := MinStackLog; logN <= MaxStackLog; logN++ {
		for rate := MinLogInvRate; rate <= MaxLogInvRate; rate++ {
			want, ok := kat[fmt.Sprintf("%d/%d", logN, rate)]
			if !ok {
				t.Fatalf("KAT lacks %d/%d", logN, rate)
			}
			seen++
			c, err := DeriveConfig(logN, rate)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(c.LogInvRates, c.Folds, c.Queries) != fmt.Sprint(want.LogInvRates, want.Folds, want.Queries) {
				t.Errorf("%d/%d: got %v %v %v, want %v %v %v", logN, rate, c.LogInvRates, c.Folds, c.Queries,
					want.LogInvRates, want.Folds, want.Queries)
			}
		}
	}
	if seen != len(kat) {
		t.Errorf("KAT has %d entries, checked %d", len(kat), seen)
	}
	for _, bad := range [][2]int{{14, 1}, {29, 1}, {20, 0}, {20, 5}} {
		if _, err := DeriveConfig(bad[0], bad[1]); err == nil {
			t.Errorf("DeriveConfig(%d, %d) accepted", bad[0], bad[1])
		}
	}
}

func TestKATInducedWeight(t *testing.T) {
	var kat []struct {
		MessageLog    int         `json:"message_log"`
		Queries       []int       `json:"queries"`
		QueryWeights  [][3]string `json:"query_weights"`
		Point         [][3]string `json:"point"`
		InducedWeight [3]string   `json:"induced_weight"`
	}
	vectors.KAT(t, "whir_induced_weight", &kat)
	if len(kat) == 0 {
		t.Fatal("empty KAT")
	}
	for i, c := range kat {
		w := make([]field.E, len(c.QueryWeights))
		for j := range w {
			w[j] = hexE(t, c.QueryWeights[j])
		}
		p := make([]field.E, len(c.Point))
		for j := range p {
			p[j] = hexE(t, c.Point[j])
		}
		want := hexE(t, c.InducedWeight)
		if got := InducedWeight(c.MessageLog, c.Queries, w, p); got != want {
			t.Errorf("case %d: got %v want %v", i, got, want)
		}
		// The prover's table must have the verifier's weight as its extension.
		for _, workers := range []int{1, 3} {
			table := make([]field.E, 1<<c.MessageLog)
			InducedTable(table, c.MessageLog, c.Queries, w, par.New(nil, workers))
			if got := field.EvalMLE(table, p); got != want {
				t.Errorf("case %d workers %d: table extension %v want %v", i, workers, got, want)
			}
		}
	}
}

func randE(r interface{ Uint64() uint64 }) field.E {
	return field.E{C0: field.K(r.Uint64()), C1: field.K(r.Uint64()), C2: field.K(r.Uint64())}
}

func TestInducedTableRandom(t *testing.T) {
	rng := testrand.New(t)
	for _, ml := range []int{0, 1, 5, 9} {
		q := make([]int, 17)
		w := make([]field.E, len(q))
		for i := range q {
			q[i] = rng.IntN(1 << (ml + 3))
			w[i] = randE(rng)
		}
		p := make([]field.E, ml)
		for i := range p {
			p[i] = randE(rng)
		}
		table := make([]field.E, 1<<ml)
		InducedTable(table, ml, q, w, par.New(nil, 2))
		if got, want := field.EvalMLE(table, p), InducedWeight(ml, q, w, p); got != want {
			t.Errorf("ml=%d: table extension %v, weight %v", ml, got, want)
		}
	}
}

func TestStackOffsets(t *testing.T) {
	cases := []struct {
		sizes []int
		want  []Placement
		log   int
	}{
		{nil, []Placement{}, 0},
		{[]int{3}, []Placement{{3, 0}}, 3},
		{[]int{2, 4, 3, 4, -1, 2}, []Placement{{2, 40}, {4, 0}, {3, 32}, {4, 16}, Virtual, {2, 44}}, 6},
		{[]int{0, 0, 0}, []Placement{{0, 0}, {0, 1}, {0, 2}}, 2},
		{[]int{-1}, []Placement{Virtual}, 0},
	}
	for _, c := range cases {
		got, log := StackOffsets(c.sizes)
		if fmt.Sprint(got) != fmt.Sprint(c.want) || log != c.log {
			t.Errorf("StackOffsets(%v) = %v, %d; want %v, %d", c.sizes, got, log, c.want, c.log)
		}
		for i, p := range got {
			if !p.IsVirtual() && p.Offset%(1<<p.Variables) != 0 {
				t.Errorf("entry %d misaligned: %v", i, p)
			}
		}
	}
	if p := (Placement{Variables: 4, Offset: 48}); p.Selector() != 3 {
		t.Errorf("selector %d", p.Selector())
	}
}

func TestSelectorEq(t *testing.T) {
	rng := testrand.New(t)
	pt := make([]field.E, 5)
	for i := range pt {
		pt[i] = randE(rng)
	}
	table := make([]field.E, 32)
	field.EqTable(table, pt)
	for s := 0; s < 32; s++ {
		if SelectorEq(s, pt) != table[s] {
			t.Errorf("selector %d disagrees with the eq table", s)
		}
	}
}

// The level's table is the same through the encoder's transpose and through the
// per-query tensors, on both sides of the cost switch.
func TestLevelTableMethodsAgree(t *testing.T) {
	rng := testrand.New(t)
	var s induceScratch
	for _, sh := range []struct{ ml, rate, queries int }{{9, 1, 40}, {6, 4, 20}, {3, 6, 30}, {12, 1, 224}, {8, 2, 1}} {
		q := make([]int, sh.queries)
		w := make([]field.E, len(q))
		for i := range q {
			q[i] = rng.IntN(1 << (sh.ml + sh.rate))
			w[i] = randE(rng)
		}
		want := make([]field.E, 1<<sh.ml)
		InducedTable(want, sh.ml, q, w, par.New(nil, 1))
		for _, workers := range []int{1, 2, 64} {
			got := make([]field.E, 1<<sh.ml)
			s.levelTable(got, sh.ml, sh.rate, q, w, par.New(nil, workers))
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%+v workers %d: entry %d differs", sh, workers, i)
				}
			}
		}
	}
}
