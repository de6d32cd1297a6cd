package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/merkle"
)

// refSet is one row of the reference-proofs README table.
type refSet struct {
	base    string
	scalars int
	levels  [][3]int // per WHIR level: openings, leaf words, depth
}

var refSets = []refSet{
	{"blake2s-batch-n256-s1", 247, [][3]int{{223, 64, 11}, {56, 24, 11}, {37, 24, 10}}},
	{"blake2s-batch-n300-s2", 267, [][3]int{{223, 64, 12}, {56, 24, 12}, {37, 24, 11}}},
	{"blake2s-batch-n4096-s3", 287, [][3]int{{224, 64, 15}, {56, 24, 15}, {38, 24, 14}, {28, 24, 13}}},
}

func heavy() bool { return os.Getenv("LEANPIPE_HEAVY") != "" }

// TestReferenceProofsCodec decodes every reference proof in both forms, re-encodes them
// byte for byte, and checks the streams agree and the counts match the README's table.
func TestReferenceProofsCodec(t *testing.T) {
	for _, set := range refSets {
		t.Run(set.base, func(t *testing.T) {
			rawBytes := vectors.ReadFile(t, "reference-proofs/"+set.base+".proof.bin")
			wireBytes := vectors.ReadFile(t, "reference-proofs/"+set.base+".wire-proof.bin")
			var raw, wire Proof
			if err := raw.UnmarshalRaw(rawBytes); err != nil {
				t.Fatalf("raw: %v", err)
			}
			if err := wire.UnmarshalWire(wireBytes); err != nil {
				t.Fatalf("wire: %v", err)
			}
			if !bytes.Equal(raw.MarshalRaw(), rawBytes) {
				t.Fatal("raw proof does not re-encode byte-identically")
			}
			if !bytes.Equal(wire.MarshalWire(), wireBytes) {
				t.Fatal("wire proof does not re-encode byte-identically")
			}
			if !slices.Equal(raw.Stream, wire.Stream) {
				t.Fatal("raw and wire streams differ")
			}
			if len(raw.Stream) != set.scalars {
				t.Fatalf("%d stream scalars, want %d", len(raw.Stream), set.scalars)
			}
			groups := rawGroups(raw.Openings)
			if len(groups) != len(set.levels) || len(wire.Phases) != len(set.levels) {
				t.Fatalf("%d raw groups and %d wire phases, want %d levels", len(groups), len(wire.Phases), len(set.levels))
			}
			for l, g := range groups {
				want := set.levels[l]
				o := g[0]
				if len(g) != want[0] || len(o.Leaf) != want[1] || len(o.Path) != want[2] {
					t.Fatalf("level %d: %d openings of %d words / depth %d, want %v", l, len(g), len(o.Leaf), len(o.Path), want)
				}
				for _, r := range wire.Phases[l].Rows {
					if len(r) != want[1] {
						t.Fatalf("level %d: wire row of %d words, want %d", l, len(r), want[1])
					}
				}
				if len(wire.Phases[l].Rows) > len(g) {
					t.Fatalf("level %d: %d wire rows for %d queries", l, len(wire.Phases[l].Rows), len(g))
				}
			}
			var cross Proof
			if cross.UnmarshalWire(rawBytes) == nil || cross.UnmarshalRaw(wireBytes) == nil {
				t.Fatal("a decoder accepted the other form's file")
			}
		})
	}
}

// rawGroups splits raw openings into runs of equal (leaf words, depth): the WHIR levels of
// the reference proofs.
func rawGroups(o []merkle.RawOpening) [][]merkle.RawOpening {
	var out [][]merkle.RawOpening
	for i := 0; i < len(o); {
		j := i + 1
		for j < len(o) && len(o[j].Leaf) == len(o[i].Leaf) && len(o[j].Path) == len(o[i].Path) {
			j++
		}
		out = append(out, o[i:j])
		i = j
	}
	return out
}

// candidateRoots returns, for every index in [0, 2^len(path)), the root the opening
// would claim at that index (all 2^(d+1) nodes, shared prefixes hashed once).
func candidateRoots(leaf []uint64, path []merkle.Digest) []merkle.Digest {
	nodes := []merkle.Digest{merkle.HashRow(leaf)}
	for l, s := range path {
		next := make([]merkle.Digest, 2*len(nodes))
		for i := range nodes {
			next[i] = blake2s.Node(&nodes[i], &s)
			next[i|1<<l] = blake2s.Node(&s, &nodes[i])
		}
		nodes = next
	}
	return nodes
}

// TestReferenceWireExpansion recovers each raw opening's position by search, then checks
// that expanding the reference's wire phase with those queries authenticates against the
// root and reproduces the reference's raw openings exactly: our Expand reads the pruned
// sibling order as the reference writes it. n4096 (depth 15) runs with LEANPIPE_HEAVY=1.
func TestReferenceWireExpansion(t *testing.T) {
	for _, set := range refSets {
		if set.levels[0][2] > 12 && !heavy() {
			continue
		}
		t.Run(set.base, func(t *testing.T) {
			var raw, wire Proof
			if err := raw.UnmarshalRaw(vectors.ReadFile(t, "reference-proofs/"+set.base+".proof.bin")); err != nil {
				t.Fatal(err)
			}
			if err := wire.UnmarshalWire(vectors.ReadFile(t, "reference-proofs/"+set.base+".wire-proof.bin")); err != nil {
				t.Fatal(err)
			}
			// Every root is on the stream as a pair of scalars with c2 = 0.
			roots := map[merkle.Digest]int{}
			for i := 0; i+1 < len(raw.Stream); i++ {
				if d, err := ScalarsDigest([2]field.E{raw.Stream[i], raw.Stream[i+1]}); err == nil {
					roots[d] = i
				}
			}
			for l, g := range rawGroups(raw.Openings) {
				depth := len(g[0].Path)
				var root merkle.Digest
				found := false
				for _, c := range candidateRoots(g[0].Leaf, g[0].Path) {
					if _, ok := roots[c]; ok {
						root, found = c, true
						break
					}
				}
				if !found {
					t.Fatalf("level %d: no stream digest is the root of the first opening", l)
				}
				if l == 0 && roots[root] != 0 {
					t.Fatalf("level 0 root found at scalar %d, want 0", roots[root])
				}
				queries := make([]int, len(g))
				memo := map[string]int{}
				for j, o := range g {
					key := fmt.Sprint(o.Leaf, o.Path)
					if q, ok := memo[key]; ok {
						queries[j] = q
						continue
					}
					queries[j] = slices.Index(candidateRoots(o.Leaf, o.Path), root)
					if queries[j] < 0 {
						t.Fatalf("level %d opening %d does not reach the root", l, j)
					}
					memo[key] = queries[j]
				}
				ph := wire.Phases[l]
				got, err := merkle.Expand(root, depth, merkle.SortedUnique(queries), ph.Rows, ph.Siblings, queries)
				if err != nil {
					t.Fatalf("level %d: reference phase rejected: %v", l, err)
				}
				for j := range g {
					if !slices.Equal(got[j].Leaf, g[j].Leaf) || !slices.Equal(got[j].Path, g[j].Path) {
						t.Fatalf("level %d query %d: expansion differs from the reference raw opening", l, j)
					}
				}
				// The verifier's wire path gives the same rows and records the same raw form.
				v := NewVerifier(&Proof{Phases: []merkle.Phase{ph}}, nil, nil)
				rows, err := v.Merkle(root, 1<<depth, queries, len(g[0].Leaf))
				if err != nil || v.Finish() != nil {
					t.Fatalf("level %d: verifier rejects the reference phase: %v", l, err)
				}
				for j := range rows {
					if !slices.Equal(rows[j], g[j].Leaf) {
						t.Fatalf("level %d: verifier row %d differs", l, j)
					}
				}
				if !bytes.Equal(v.RawProof().MarshalRaw(), (&Proof{Openings: g}).MarshalRaw()) {
					t.Fatalf("level %d: RawProof differs from the reference raw openings", l)
				}
				// A raw verifier accepts the reference raw openings at these queries.
				vr := NewVerifier(&Proof{Openings: g}, nil, nil)
				if _, err := vr.Merkle(root, 1<<depth, queries, len(g[0].Leaf)); err != nil || vr.Finish() != nil {
					t.Fatalf("level %d: raw verifier rejects: %v", l, err)
				}
				// And a flipped sibling byte of the phase is rejected.
				bad := merkle.Phase{Rows: ph.Rows, Siblings: slices.Clone(ph.Siblings)}
				bad.Siblings[len(bad.Siblings)/2][7] ^= 0x10
				vb := NewVerifier(&Proof{Phases: []merkle.Phase{bad}}, nil, nil)
				if _, err := vb.Merkle(root, 1<<depth, queries, len(g[0].Leaf)); !errors.Is(err, ErrInvalidOpening) {
					t.Fatalf("level %d: tampered phase: got %v", l, err)
				}
			}
		})
	}
}

// TestTraceReplays: the traced steps, replayed with Compress, reproduce every
// chaining value: on-chain steps chain, a grinding check's two steps hang off it.
func TestTraceReplays(t *testing.T) {
	p := NewProver([]byte("trace"), nil)
	p.Send(field.E{C0: 7})
	p.Sample()
	p.Grind(6)
	p.AbsorbBytes([]byte("some bytes past one chunk of 24"))
	p.Sample()
	v := NewVerifier(p.Proof(), []byte("trace"), nil)
	var steps []Step
	v.Trace(func(s Step) { steps = append(steps, s) })
	start := v.State()
	n0 := v.Compressions()
	if _, err := v.Receive(); err != nil {
		t.Fatal(err)
	}
	v.Sample()
	if err := v.GrindCheck(6); err != nil {
		t.Fatal(err)
	}
	v.AbsorbBytes([]byte("some bytes past one chunk of 24"))
	v.Sample()
	if len(steps) != v.Compressions()-n0 {
		t.Fatalf("%d steps traced, %d compressions run", len(steps), v.Compressions()-n0)
	}
	cv := [4]uint64(start)
	off := 0
	for i, s := range steps {
		if Compress(s.In, s.Block) != s.Out {
			t.Fatalf("step %d: Out is not Compress(In, Block)", i)
		}
		if s.OnChain {
			if s.In != cv {
				t.Fatalf("step %d starts from %x, the chain is at %x", i, s.In, cv)
			}
			cv = s.Out
		} else {
			off++
		}
	}
	if off != 2 || cv != [4]uint64(v.State()) {
		t.Fatalf("%d off-chain steps, chain ends at %x, the transcript at %x", off, cv, v.State())
	}
}

// TestCompressionsCounted: the verifier counts one compression per absorbed block and squeeze.
func TestCompressionsCounted(t *testing.T) {
	// Prefix (30 bytes) and a 5-byte label: a length frame each, then 2 and 1 chunks.
	v := NewVerifier(nil, []byte("label"), nil)
	if got := v.Compressions(); got != 1+2+1+1 {
		t.Fatalf("start: %d compressions, want 5", got)
	}
	v.Sample()
	v.Observe(v.Sample())
	if got := v.Compressions(); got != 8 {
		t.Fatalf("after two samples and an observe: %d, want 8", got)
	}
}
