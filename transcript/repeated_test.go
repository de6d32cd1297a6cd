package transcript_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/testtranscript"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// The repeated-prefix tests' protocol: the prover sends the root of a tree of
// repLeaves rows of repWords words, opens the given queries with OpenRepeated and
// sends repLast; the verifier reads the same, checking the last scalar.
const (
	repLeaves = 64
	repWords  = 12
)

var (
	repLabel = []byte("repeated-test")
	repLast  = field.E{C0: 5, C1: 6, C2: 7}
)

// Query lists: duplicates, both ends of the tree, neighbours sharing a parent, a
// single end, and every leaf (no sibling sent at all).
var repQueries = [][]int{
	{0, repLeaves - 1, 5, 5, 6, 7, 0, 33, 32},
	{0},
	{repLeaves - 1},
	{17, 17, 17},
	allLeaves(),
}

func allLeaves() []int {
	q := make([]int, repLeaves)
	for i := range q {
		q[i] = repLeaves - 1 - i
	}
	return q
}

// repRows returns repLeaves random rows whose first rep+1 words are equal.
func repRows(rng *rand.Rand, rep int) []uint64 {
	rows := make([]uint64, repLeaves*repWords)
	for i := range rows {
		rows[i] = rng.Uint64()
	}
	for r := range repLeaves {
		row := rows[r*repWords : (r+1)*repWords]
		for i := range rep {
			row[i] = row[rep]
		}
	}
	return rows
}

func repProve(t *testing.T, tree *merkle.Tree, queries []int, rep int) *transcript.Proof {
	t.Helper()
	p := transcript.NewProver(repLabel, nil)
	p.SendDigest(tree.Root())
	rows, err := p.OpenRepeated(tree, queries, rep)
	if err != nil {
		t.Fatal(err)
	}
	for j, q := range queries {
		if !slices.Equal(rows[j], tree.Row(q)) {
			t.Fatalf("OpenRepeated returned another row for query %d", q)
		}
	}
	p.Send(repLast)
	return p.Proof()
}

// plainProve is repProve with Open.
func plainProve(tree *merkle.Tree, queries []int) *transcript.Proof {
	p := transcript.NewProver(repLabel, nil)
	p.SendDigest(tree.Root())
	p.Open(tree, queries)
	p.Send(repLast)
	return p.Proof()
}

func repVerify(proof *transcript.Proof, queries []int, rep int) ([][]uint64, error) {
	v := transcript.NewVerifier(proof, repLabel, nil)
	root, err := v.ReceiveDigest()
	if err != nil {
		return nil, err
	}
	rows, err := v.MerkleRepeated(root, repLeaves, queries, repWords, rep)
	if err != nil {
		return nil, err
	}
	x, err := v.Receive()
	if err != nil {
		return nil, err
	}
	if x != repLast {
		return nil, transcript.ErrInvalidOpening // any error: the stream was changed
	}
	return rows, v.Finish()
}

// reforms returns the proof re-read from its wire and raw bytes.
func reforms(t *testing.T, p *transcript.Proof) (wire, raw *transcript.Proof) {
	t.Helper()
	wire, raw = new(transcript.Proof), new(transcript.Proof)
	if err := wire.UnmarshalWire(p.MarshalWire()); err != nil {
		t.Fatal(err)
	}
	if err := raw.UnmarshalRaw(p.MarshalRaw()); err != nil {
		t.Fatal(err)
	}
	return wire, raw
}

// An honest repeated opening verifies in both forms and returns the full rows in
// query order; its stream and raw openings are Open's, and its wire phase is Open's
// with each row's first rep words left out.
func TestRepeatedRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	for _, rep := range []int{0, 1, 4, repWords - 1} {
		tree := merkle.New(repRows(rng, rep), repWords, par.Serial())
		for _, queries := range repQueries {
			p := repProve(t, tree, queries, rep)
			plain := plainProve(tree, queries)
			if !slices.Equal(p.Stream, plain.Stream) || !bytes.Equal(p.MarshalRaw(), plain.MarshalRaw()) {
				t.Fatalf("rep %d, queries %v: the stream or raw form differs from Open's", rep, queries)
			}
			ph, pp := p.Phases[0], plain.Phases[0]
			if !slices.Equal(ph.Siblings, pp.Siblings) || len(ph.Rows) != len(pp.Rows) {
				t.Fatalf("rep %d: the siblings or row count differ from Open's", rep)
			}
			for k, r := range ph.Rows {
				if !slices.Equal(r, pp.Rows[k][rep:]) {
					t.Fatalf("rep %d: wire row %d is not Open's without its first %d words", rep, k, rep)
				}
			}
			if saved := len(plain.MarshalWire()) - len(p.MarshalWire()); saved != 8*rep*len(ph.Rows) {
				t.Fatalf("rep %d: the wire form is %d bytes shorter, want %d", rep, saved, 8*rep*len(ph.Rows))
			}
			wire, raw := reforms(t, p)
			for form, q := range map[string]*transcript.Proof{"wire": wire, "raw": raw} {
				rows, err := repVerify(q, queries, rep)
				if err != nil {
					t.Fatalf("rep %d, queries %v, %s form: %v", rep, queries, form, err)
				}
				for j, qi := range queries {
					if !slices.Equal(rows[j], tree.Row(qi)) {
						t.Fatalf("rep %d, %s form: query %d read another row", rep, form, qi)
					}
				}
			}
		}
	}
}

// Every kept word of every wire row and every sibling, changed, is rejected; so is a
// sibling dropped or added, a row dropped, a row of another width, and (raw form)
// every word of every leaf, the repeated ones included.
func TestRepeatedTamper(t *testing.T) {
	rng := testrand.New(t)
	const rep = 4
	tree := merkle.New(repRows(rng, rep), repWords, par.Serial())
	queries := repQueries[0]
	p := repProve(t, tree, queries, rep)
	wire, raw := reforms(t, p)
	ph := wire.Phases[0]
	with := func(mod func(ph *merkle.Phase)) *transcript.Proof {
		c := merkle.Phase{Siblings: slices.Clone(ph.Siblings)}
		for _, r := range ph.Rows {
			c.Rows = append(c.Rows, slices.Clone(r))
		}
		mod(&c)
		return &transcript.Proof{Stream: wire.Stream, Phases: []merkle.Phase{c}}
	}
	n := 0
	for k := range ph.Rows {
		for i := range ph.Rows[k] {
			q := with(func(c *merkle.Phase) { c.Rows[k][i] ^= 1 << rng.IntN(64) })
			if _, err := repVerify(q, queries, rep); err == nil {
				t.Fatalf("wire row %d word %d changed: accepted", k, i)
			}
			n++
		}
	}
	for s := range ph.Siblings {
		q := with(func(c *merkle.Phase) { c.Siblings[s][rng.IntN(32)] ^= byte(1 + rng.IntN(255)) })
		if _, err := repVerify(q, queries, rep); err == nil {
			t.Fatalf("sibling %d changed: accepted", s)
		}
		n++
	}
	for name, mod := range map[string]func(c *merkle.Phase){
		"sibling dropped":    func(c *merkle.Phase) { c.Siblings = c.Siblings[1:] },
		"sibling added":      func(c *merkle.Phase) { c.Siblings = append(c.Siblings, c.Siblings[0]) },
		"row dropped":        func(c *merkle.Phase) { c.Rows = c.Rows[1:] },
		"row with its words": func(c *merkle.Phase) { c.Rows[0] = append(slices.Repeat(c.Rows[0][:1], rep), c.Rows[0]...) },
		"row one word short": func(c *merkle.Phase) { c.Rows[0] = c.Rows[0][1:] },
		"row one word long":  func(c *merkle.Phase) { c.Rows[0] = append(c.Rows[0], 0) },
		"empty row":          func(c *merkle.Phase) { c.Rows[0] = nil },
	} {
		if _, err := repVerify(with(mod), queries, rep); err == nil {
			t.Fatalf("%s: accepted", name)
		}
	}
	for o := range raw.Openings {
		for i := range repWords {
			q := &transcript.Proof{Stream: raw.Stream, Openings: slices.Clone(raw.Openings)}
			leaf := slices.Clone(q.Openings[o].Leaf)
			leaf[i] ^= 1 << rng.IntN(64)
			q.Openings[o].Leaf = leaf
			_, err := repVerify(q, queries, rep)
			if err == nil {
				t.Fatalf("raw opening %d word %d changed: accepted", o, i)
			}
			// A repeated word is caught by the repetition check, before any hashing.
			if i < rep && !strings.Contains(err.Error(), "repeat") {
				t.Fatalf("raw opening %d word %d: %v, want the repetition check's error", o, i, err)
			}
			n++
		}
	}
	t.Logf("%d changes rejected", n)
}

// A tree whose rows do not repeat: the prover refuses to write the form (recording
// nothing); its honest plain openings, which authenticate, are rejected in both forms.
func TestRepeatedRejectsRowsThatDoNotRepeat(t *testing.T) {
	rng := testrand.New(t)
	const rep = 3
	rows := repRows(rng, rep)
	rows[9*repWords+1] ^= 1 // row 9, word 1 ≠ word 3
	tree := merkle.New(rows, repWords, par.Serial())
	queries := []int{2, 9, 40}
	p := transcript.NewProver(repLabel, nil)
	if _, err := p.OpenRepeated(tree, queries, rep); err == nil || !strings.Contains(err.Error(), "row 9: word 1") {
		t.Fatalf("OpenRepeated of a row that does not repeat: %v", err)
	}
	if pr := p.Proof(); len(pr.Phases) != 0 || len(pr.Openings) != 0 {
		t.Fatal("a refused OpenRepeated recorded an opening")
	}
	plain := plainProve(tree, queries)
	wire, raw := reforms(t, plain)
	if _, err := repVerify(raw, queries, rep); err == nil || !strings.Contains(err.Error(), "word 1 differs from word 3") {
		t.Fatalf("raw openings of a row that does not repeat: %v", err)
	}
	if _, err := repVerify(wire, queries, rep); err == nil {
		t.Fatal("full-width wire rows accepted")
	}
	// The rows trimmed as the form writes them rebuild another leaf: root mismatch.
	for k := range wire.Phases[0].Rows {
		wire.Phases[0].Rows[k] = wire.Phases[0].Rows[k][rep:]
	}
	if _, err := repVerify(wire, queries, rep); err == nil {
		t.Fatal("trimmed wire rows of a row that does not repeat accepted")
	}
	// Without the repetition both read as ordinary openings.
	if _, err := repVerify(raw, queries, 0); err != nil {
		t.Fatal(err)
	}
}

// Bad arguments are errors, never panics.
func TestRepeatedBadArguments(t *testing.T) {
	rng := testrand.New(t)
	tree := merkle.New(repRows(rng, 2), repWords, par.Serial())
	padded := merkle.NewPadded(nil, repRows(rng, 2), repWords, repWords+2, par.Serial())
	p := transcript.NewProver(repLabel, nil)
	for name, err := range map[string]error{
		"rep -1":        second(p.OpenRepeated(tree, []int{1}, -1)),
		"rep = width":   second(p.OpenRepeated(tree, []int{1}, repWords)),
		"padded tree":   second(p.OpenRepeated(padded, []int{1}, 1)),
		"query -1":      second(p.OpenRepeated(tree, []int{-1}, 1)),
		"query too far": second(p.OpenRepeated(tree, []int{repLeaves}, 1)),
	} {
		if err == nil {
			t.Errorf("OpenRepeated with %s: no error", name)
		}
	}
	proof := repProve(t, tree, []int{3}, 2)
	for name, f := range map[string]func(v *transcript.Verifier) error{
		"rep -1": func(v *transcript.Verifier) error {
			return second(v.MerkleRepeated(merkle.Digest{}, repLeaves, []int{3}, repWords, -1))
		},
		"rep = width": func(v *transcript.Verifier) error {
			return second(v.MerkleRepeated(merkle.Digest{}, repLeaves, []int{3}, repWords, repWords))
		},
		"block length 12": func(v *transcript.Verifier) error {
			return second(v.MerkleRepeated(merkle.Digest{}, 12, []int{3}, repWords, 2))
		},
		"query too far": func(v *transcript.Verifier) error {
			return second(v.MerkleRepeated(merkle.Digest{}, repLeaves, []int{repLeaves}, repWords, 2))
		},
		"no phase left": func(v *transcript.Verifier) error {
			_, _ = v.MerkleRepeated(merkle.Digest{}, repLeaves, []int{3}, repWords, 2)
			return second(v.MerkleRepeated(merkle.Digest{}, repLeaves, []int{3}, repWords, 2))
		},
	} {
		for form, q := range map[string]*transcript.Proof{"wire": proof, "raw": {Stream: proof.Stream, Openings: proof.Openings}} {
			v := transcript.NewVerifier(q, repLabel, nil)
			if _, err := v.ReceiveDigest(); err != nil {
				t.Fatal(err)
			}
			if f(v) == nil {
				t.Errorf("MerkleRepeated with %s (%s form): no error", name, form)
			}
		}
	}
}

func second[T any](_ T, err error) error { return err }

// testtranscript.Mutate over a repeated-form proof (1,000 mutations): every one is
// rejected, none panics.
func TestRepeatedMutationsRejected(t *testing.T) {
	rng := testrand.New(t)
	const rep = 5
	tree := merkle.New(repRows(rng, rep), repWords, par.Serial())
	queries := repQueries[0]
	p := repProve(t, tree, queries, rep)
	for range 1000 {
		q, what, ok := testtranscript.Mutate(rng, p)
		if !ok {
			continue
		}
		if _, err := repVerify(q, queries, rep); err == nil {
			t.Fatalf("%s: accepted", what)
		}
	}
}

// The verifier never panics on arbitrary bytes read as a repeated-form proof, and
// accepts nothing but the honest opening's bytes.
func FuzzMerkleRepeated(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rep = 4
	tree := merkle.New(repRows(rng, rep), repWords, par.Serial())
	queries := repQueries[0]
	p := transcript.NewProver(repLabel, nil)
	p.SendDigest(tree.Root())
	if _, err := p.OpenRepeated(tree, queries, rep); err != nil {
		f.Fatal(err)
	}
	p.Send(repLast)
	honestWire, honestRaw := p.Proof().MarshalWire(), p.Proof().MarshalRaw()
	f.Add(honestWire, true)
	f.Add(honestRaw, false)
	f.Fuzz(func(t *testing.T, data []byte, wire bool) {
		var q transcript.Proof
		var err error
		if wire {
			err = q.UnmarshalWire(data)
		} else {
			err = q.UnmarshalRaw(data)
		}
		if err != nil {
			return
		}
		if _, err := repVerify(&q, queries, rep); err == nil {
			if honest := map[bool][]byte{true: honestWire, false: honestRaw}[wire]; !bytes.Equal(data, honest) {
				t.Fatalf("accepted bytes other than the honest proof's")
			}
		}
	})
}
