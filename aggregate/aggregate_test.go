package aggregate

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/xmss"
)

// The known-answer vectors of testdata/vectors/xmss/xmss-kat.json (the reference's
// crates/xmss): 16 valid signatures and the invalid cases.

type hexBytes []byte

func (h *hexBytes) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := hex.DecodeString(s)
	*h = v
	return err
}

type katFile struct {
	Signers []struct {
		PublicKey hexBytes `json:"public_key"`
	} `json:"signers"`
	Signatures []struct {
		ID        string   `json:"id"`
		Signer    int      `json:"signer"`
		Epoch     uint32   `json:"epoch"`
		Message   hexBytes `json:"message"`
		Signature hexBytes `json:"signature"`
	} `json:"signatures"`
	InvalidCases []struct {
		ID        string   `json:"id"`
		PublicKey hexBytes `json:"public_key"`
		Message   hexBytes `json:"message"`
		Epoch     uint32   `json:"epoch"`
		Signature hexBytes `json:"signature"`
		Accepts   bool     `json:"reference_accepts"`
	} `json:"invalid_cases"`
}

type katCase struct {
	id  string
	st  Statement
	sig xmss.Signature
}

var (
	katOnce          sync.Once
	katValid, katBad []katCase
	katErr           error
)

func parseCase(id string, pkb, msgb []byte, epoch uint32, sigb []byte) (katCase, error) {
	pk, err := xmss.ParsePublicKey(pkb)
	if err != nil {
		return katCase{}, err
	}
	sig, err := xmss.ParseSignature(sigb)
	if err != nil {
		return katCase{}, err
	}
	c := katCase{id: id, st: Statement{PublicKey: pk, Epoch: epoch}, sig: sig}
	copy(c.st.Message[:], msgb)
	return c, nil
}

func loadKAT(t testing.TB) (valid, invalid []katCase) {
	t.Helper()
	b, err := os.ReadFile(vectors.Path(t, "xmss/xmss-kat.json"))
	if err != nil {
		t.Fatal(err)
	}
	katOnce.Do(func() {
		var k katFile
		if katErr = json.Unmarshal(b, &k); katErr != nil {
			return
		}
		for _, s := range k.Signatures {
			c, err := parseCase(s.ID, k.Signers[s.Signer].PublicKey, s.Message, s.Epoch, s.Signature)
			if err != nil {
				katErr = err
				return
			}
			katValid = append(katValid, c)
		}
		for _, s := range k.InvalidCases {
			if s.Accepts {
				continue
			}
			c, err := parseCase(s.ID, s.PublicKey, s.Message, s.Epoch, s.Signature)
			if err != nil {
				katErr = err
				return
			}
			katBad = append(katBad, c)
		}
	})
	if katErr != nil {
		t.Fatalf("xmss-kat.json: %v", katErr)
	}
	if len(katValid) == 0 || len(katBad) == 0 {
		t.Fatalf("xmss-kat.json: %d valid, %d invalid signatures", len(katValid), len(katBad))
	}
	return katValid, katBad
}

// failures returns the lanes whose rows are not all satisfied, as a bit mask.
func failures(c *Circuit, w []uint64) uint64 {
	a := make([]uint64, c.Size())
	b := make([]uint64, c.Size())
	circuit.RowValuesWords(c.Circuit, a, b, w)
	var bad uint64
	for i := range w {
		bad |= a[i]&b[i] ^ w[i]
	}
	return bad
}

func TestCircuitShape(t *testing.T) {
	c := New()
	t.Logf("%v; %d product rows, gates [%d, %d)", c, c.NumRows(), c.Layout.GateStart, c.Useful())
	if c.LogSize() != LogSize || c.Useful() > c.Size() {
		t.Fatalf("block 2^%d, useful %d", c.LogSize(), c.Useful())
	}
	for _, name := range []string{"P", "message", "epoch", "root", "assert"} {
		if _, ok := c.Region(name); !ok {
			t.Errorf("no region %q", name)
		}
	}
	if r, _ := c.Region("assert"); r.Base != AssertBase || r.Len != AssertLen {
		t.Errorf("assert region %+v", r)
	}
	// Every pinned column is constrained: an input (P, message, epoch) or a row.
	cols, _ := Statement{}.Pinned()
	for _, col := range cols {
		if !c.IsRow(col) {
			t.Fatalf("pinned column %d (%s) has no row", col, RegionOf(col))
		}
	}
}

// Every valid KAT signature: FillWitness succeeds, the block satisfies every row and
// its pinned columns equal the statement's values.
func TestValidSignatures(t *testing.T) {
	valid, _ := loadKAT(t)
	c := New()
	var as []*Assignment
	for _, k := range valid {
		as = append(as, Plan(k.st, &k.sig))
	}
	w := c.Solve(as...)
	if bad := failures(c, w); bad != 0 {
		t.Fatalf("unsatisfied lanes %b", bad)
	}
	for j, k := range valid {
		if err := c.CheckPinned(w, uint(j), k.st); err != nil {
			t.Errorf("%s: %v", k.id, err)
		}
		// Another statement (the next signature's) disagrees with the block.
		other := valid[(j+1)%len(valid)].st
		if other.PublicKey == k.st.PublicKey && other.Epoch == k.st.Epoch {
			continue
		}
		if err := c.CheckPinned(w, uint(j), other); err == nil {
			t.Errorf("%s: block also matches %+v", k.id, other)
		}
	}
	// FillWitness (native check first) gives the same block.
	k := valid[0]
	w0, err := FillWitness(k.st.PublicKey, k.st.Epoch, k.st.Message, &k.sig)
	if err != nil {
		t.Fatal(err)
	}
	for col := range w0 {
		if w0[col] != w[col]&1 {
			t.Fatalf("FillWitness differs from Solve at column %d", col)
		}
	}
}

// verdict solves the assignments and returns, per lane, "" when the block satisfies
// every row and matches its statement, or the reason it does not.
func verdict(t *testing.T, as []*Assignment, sts []Statement) []string {
	t.Helper()
	c := New()
	w := c.Solve(as...)
	bad := failures(c, w)
	out := make([]string, len(as))
	for j, a := range as {
		var reasons []string
		if bad>>j&1 == 1 {
			row := -1
			aa := make([]uint64, c.Size())
			bb := make([]uint64, c.Size())
			circuit.RowValuesWords(c.Circuit, aa, bb, w)
			for i := range w {
				if (aa[i]&bb[i]^w[i])>>j&1 == 1 {
					row = i
					break
				}
			}
			reasons = append(reasons, "row "+strconv.Itoa(row))
		}
		st := a.Statement
		if sts != nil {
			st = sts[j]
		}
		cols, vals := st.Pinned()
		for i, col := range cols {
			if uint8(w[col]>>j&1) != vals[i] {
				reasons = append(reasons, RegionOf(col))
			}
		}
		out[j] = strings.Join(dedup(reasons), ",")
	}
	return out
}

func dedup(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if i := strings.IndexByte(x, '['); i > 0 {
			x = x[:i]
		}
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Each invalid KAT case, its witness filled without the native check: the block
// disagrees with its statement.
func TestInvalidCasesRejected(t *testing.T) {
	_, bad := loadKAT(t)
	var as []*Assignment
	for _, k := range bad {
		if xmss.Verify(k.st.PublicKey, k.st.Epoch, k.st.Message, &k.sig) == nil {
			t.Fatalf("%s: verifies natively", k.id)
		}
		as = append(as, Plan(k.st, &k.sig))
	}
	for j, v := range verdict(t, as, nil) {
		if v == "" {
			t.Errorf("%s: forced witness satisfies the block and its statement", bad[j].id)
		}
		t.Logf("%s: %s", bad[j].id, v)
	}
}

// forcedLayout is a tampering of a valid signature's assignment, and a reason the
// circuit must give for refusing it ("" for any).
type forcedLayout struct {
	name  string
	apply func(*Assignment)
	want  string
}

// forcedLayouts are the tamperings of k's assignment that the soundness tests force,
// at the circuit (TestForcedWitnessesRejected) and through whole proofs
// (TestForcedInvalidProofsRejected).
func forcedLayouts(t testing.TB, k katCase) []forcedLayout {
	t.Helper()
	d := xmss.EncodingDigest(&k.st.PublicKey.P, k.st.Epoch, &k.st.Message, &k.sig.Rho)
	x, err := xmss.Digits(&d)
	if err != nil {
		t.Fatal(err)
	}
	// Two consecutive chains with at least one step each.
	ci := -1
	for i := 0; i+1 < xmss.V; i++ {
		if x[i] < 7 && x[i+1] < 7 {
			ci = i
			break
		}
	}
	// replan lays out k's signature for a witness epoch XORed with flip (the statement
	// checked keeps k's epoch).
	replan := func(flip uint32) func(*Assignment) {
		return func(a *Assignment) {
			st := k.st
			st.Epoch ^= flip
			*a = *Plan(st, &k.sig)
		}
	}
	ls := []forcedLayout{
		// A wrapped chain counter: a run starting at position 7 (no such step exists);
		// the counter then wraps to 0.
		{"wrapped counter", func(a *Assignment) {
			for j := 1; j < Slots; j++ {
				if a.Start[j] {
					a.Pos[j] = 7
					return
				}
			}
		}, "assert/nowrap"},
		// A wrapped run that still ends at (i, 6) with the right start: chain ci walked
		// from one position earlier — the label k' wraps 7 → 0, so the tip check fires.
		{"counter off by one", func(a *Assignment) {
			for j := range Slots {
				if a.Start[j] && a.Chain[j] == uint8(ci) {
					a.Pos[j] = (x[ci] + 7) & 7 // one step earlier than x: mod 8 is x−1
					return
				}
			}
		}, "assert/tip"},
		// A tip routed from the wrong chain: chains ci and ci+1 swap ends.
		{"tips of chains ci and ci+1 swapped", func(a *Assignment) {
			a.Src[ci], a.Src[ci+1] = a.Src[ci+1], a.Src[ci]
		}, "assert/tip"},
		// A chain with steps given a free lane (a free value claimed as its end).
		{"free lane as a chain's end", func(a *Assignment) {
			for o := xmss.V; o < RouteLanes; o++ {
				if a.Src[o] >= Slots {
					a.Src[ci], a.Src[o] = a.Src[o], a.Src[ci]
					return
				}
			}
		}, "assert/tip"},
		// A mislabelled run: chain ci's run claims chain ci+1's label.
		{"mislabelled run", func(a *Assignment) {
			for j := range Slots {
				if a.Start[j] && a.Chain[j] == uint8(ci) {
					a.Chain[j] = uint8(ci + 1)
				}
			}
		}, "assert/tip"},
		// A swapped Merkle order at level 5: the circuit swaps on the epoch bit, so the
		// order can only change with the witness's epoch bit, which the epoch pin catches.
		{"swapped Merkle order (witness epoch bit 5)", replan(1 << 5), "epoch"},
		// A wrong epoch bit 0 (the leaf's left/right order and every tweak).
		{"wrong epoch bit 0", replan(1), "epoch"},
		// Swapped siblings at level 2: the root differs.
		{"swapped Merkle siblings at level 2", func(a *Assignment) {
			a.Path[2], a.Path[3] = a.Path[3], a.Path[2]
		}, "root"},
		// A flipped sibling bit at level 3: the root differs.
		{"flipped sibling", func(a *Assignment) { a.Path[3][0] ^= 1 }, "root"},
		// A wrong ρ: the encoding checks or the root fail.
		{"flipped rho", func(a *Assignment) { a.Rho[0] ^= 1 }, ""},
	}
	if x[ci] < 6 {
		// A chain's end taken from the middle of its run (position < 7).
		ls = append(ls, forcedLayout{"end from the middle of a run", func(a *Assignment) {
			for o := range a.Src {
				if o != ci && a.Src[o] == a.Src[ci]-1 {
					a.Src[ci], a.Src[o] = a.Src[o], a.Src[ci]
					return
				}
			}
		}, "assert/tip"})
	}
	return ls
}

// Forced layouts: each tampering of a valid signature's assignment is caught by the
// named check.
func TestForcedWitnessesRejected(t *testing.T) {
	valid, _ := loadKAT(t)
	k := valid[0]
	cases := forcedLayouts(t, k)
	var as []*Assignment
	var sts []Statement
	for _, f := range cases {
		a := Plan(k.st, &k.sig)
		f.apply(a)
		as = append(as, a)
		sts = append(sts, k.st)
	}
	for j, v := range verdict(t, as, sts) {
		f := cases[j]
		t.Logf("%s: %s", f.name, v)
		if v == "" {
			t.Errorf("%s: forced witness accepted", f.name)
		} else if f.want != "" && !strings.Contains(v, f.want) {
			t.Errorf("%s: rejected by %q, want %q among the reasons", f.name, v, f.want)
		}
	}
}

// Random single-bit flips of a valid block: every flip of a row column breaks its
// row; every flip of a pinned input column disagrees with the statement.
func TestBitFlipsCaught(t *testing.T) {
	valid, _ := loadKAT(t)
	c := New()
	k := valid[1]
	w := c.Solve(Plan(k.st, &k.sig))
	r := testrand.New(t)
	isInput := make([]bool, c.Size())
	for _, col := range c.Inputs() {
		isInput[col] = true
	}
	flips := 2000
	if testing.Short() {
		flips = 300
	}
	// Flip 64 columns at a time, one per lane, all in lane-copies of w.
	ww := make([]uint64, len(w))
	for col := range w {
		ww[col] = -(w[col] & 1) // lane copies
	}
	for done := 0; done < flips; done += 64 {
		var cols [64]int
		for l := range cols {
			for {
				col := r.IntN(c.Useful())
				if c.IsRow(col) && (!isInput[col] || RegionOf(col) != "") {
					cols[l] = col
					break
				}
			}
			ww[cols[l]] ^= 1 << l
		}
		bad := failures(c, ww)
		for l, col := range cols {
			caught := bad>>l&1 == 1
			if !caught && RegionOf(col) != "" {
				caught = true // a pinned column differs from the statement
			}
			if !caught {
				t.Fatalf("flip of column %d (input %v) not caught", col, isInput[col])
			}
		}
		for l, col := range cols {
			ww[col] ^= 1 << l
		}
	}
}
