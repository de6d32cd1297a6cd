package open

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/transcript"
)

// forger is a prover transcript that changes the scalar it sends at stream index at
// (by adding 1 to its c0) and sends everything else as given: a prover that forges
// one message and then carries on honestly from its own data, every later message,
// nonce and challenge consistent with the forged transcript.
type forger struct {
	*transcript.Prover
	at int
}

func (f *forger) Send(v field.E) {
	if f.StreamLen() == f.at {
		v = v.Add(field.E{C0: 1})
	}
	f.Prover.Send(v)
}

func (f *forger) SendRoundPoly(coeffs []field.E, eq bool) {
	c := slices.Clone(coeffs)
	fixed := 1
	if eq {
		fixed = 0
	}
	pos := f.StreamLen()
	for i := range c {
		if i == fixed {
			continue
		}
		if pos == f.at {
			c[i] = c[i].Add(field.E{C0: 1})
		}
		pos++
	}
	f.Prover.SendRoundPoly(c, eq)
}

// proveForging is instance.prove with the scalar at stream index at forged by the
// prover (at < 0: none).
func (in *instance) proveForging(t testing.TB, at int) *transcript.Proof {
	t.Helper()
	c, err := commit.Commit(in.committed(), in.stackLog, in.rate, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	tr := &forger{Prover: transcript.NewProver(testLabel, nil), at: at}
	h := commit.RootHalves(c.Root())
	tr.SendMany(h[:])
	if err := ProveStacked(tr, c, in.place, in.ring(true), in.points, par.New(nil, 2)); err != nil {
		t.Fatal(err)
	}
	return tr.Proof()
}

// streamRole names what the verifier reads at each stream index of an instance's
// proof (the root's two scalars first), and the check that guards it.
type streamRole struct {
	what  string
	level int
	// guard: "terminal" (the final sumcheck identity), "root" (the next level's
	// openings authenticate against the root sent), "pow" (the grinding check).
	guard string
}

func whirRoles(t *testing.T, cfg *Config) []streamRole {
	t.Helper()
	roles := []streamRole{{"root", -1, ""}, {"root", -1, ""}}
	add := func(n int, what string, level int, guard string) {
		for range n {
			roles = append(roles, streamRole{what, level, guard})
		}
	}
	add(2, "initial round polynomial", 0, "terminal")
	for l := 0; l < cfg.Levels(); l++ {
		add(2*cfg.Folds[l], "fold round polynomial", l, "terminal")
		msg := cfg.MessageLog(l)
		if l < cfg.Levels()-1 {
			add(2, "next root", l+1, "root")
			add(1, "out-of-domain answer", l, "terminal")
			add(2, "out-of-domain round polynomial", l, "terminal")
		} else {
			add(1<<msg, "final polynomial", l, "terminal")
		}
		add(1, "grinding nonce", l, "pow")
		add(2, "query claim round polynomial", l, "terminal")
		if l == cfg.Levels()-1 {
			add(2*(msg-1), "tail round polynomial", l, "terminal")
		}
	}
	return roles
}

// TestForgedWHIRValuesRejected: a prover forges one scalar of the opening (a round
// polynomial, an out-of-domain answer, the final polynomial, a level's root) and goes
// on honestly; the check that guards that value rejects it: the terminal identity
// (ErrTerminal) for every sumcheck message, OOD answer and final-polynomial value, and
// the next level's Merkle check for its root. Each index of the stream is forged once
// (on a partial-lane stack too), and a grinding nonce changed in the proof is rejected
// by the proof-of-work check. Every cut of the stream fails at that scalar's read.
func TestForgedWHIRValuesRejected(t *testing.T) {
	rng := testrand.New(t)
	for _, in := range []*instance{newInstance(rng, 15, 1, 13, 1), newPartialInstance(rng, 15, 2, 3, 10, 1)} {
		cfg, err := DeriveConfig(in.stackLog, in.rate)
		if err != nil {
			t.Fatal(err)
		}
		honest := in.proveForging(t, -1)
		if err := in.verify(honest); err != nil {
			t.Fatalf("honest proof rejected: %v", err)
		}
		roles := whirRoles(t, cfg)
		if len(roles) != len(honest.Stream) {
			t.Fatalf("layout of %d scalars, stream of %d", len(roles), len(honest.Stream))
		}
		for at := 2; at < len(roles); at++ {
			r := roles[at]
			if r.guard == "pow" {
				p := &transcript.Proof{Stream: slices.Clone(honest.Stream), Openings: honest.Openings}
				p.Stream[at].C0 ^= 1 << 40
				err := in.verify(p)
				if !errors.Is(err, transcript.ErrPow) || !strings.Contains(err.Error(), fmt.Sprintf("at scalar %d", at)) {
					t.Fatalf("lanes %d: %s of level %d (scalar %d) changed: err = %v, want ErrPow there", in.lanes, r.what, r.level, at, err)
				}
				continue
			}
			p := in.proveForging(t, at)
			if p.Stream[at] == honest.Stream[at] {
				t.Fatalf("scalar %d was not forged", at)
			}
			err := in.verify(p)
			switch r.guard {
			case "terminal":
				if !errors.Is(err, ErrTerminal) {
					t.Fatalf("lanes %d: %s of level %d (scalar %d) forged: err = %v, want ErrTerminal", in.lanes, r.what, r.level, at, err)
				}
			case "root":
				if !errors.Is(err, transcript.ErrInvalidOpening) || !strings.Contains(err.Error(), fmt.Sprintf("WHIR level %d:", r.level)) {
					t.Fatalf("lanes %d: root of level %d (scalar %d) forged: err = %v, want that level's Merkle check", in.lanes, r.level, at, err)
				}
			}
		}
		for cut := 0; cut < len(honest.Stream); cut++ {
			p := &transcript.Proof{Stream: honest.Stream[:cut], Openings: honest.Openings}
			err := in.verify(p)
			if !errors.Is(err, transcript.ErrStreamExhausted) || !strings.Contains(err.Error(), fmt.Sprintf("after %d scalars", cut)) {
				t.Fatalf("lanes %d: stream cut at %d (%s): err = %v", in.lanes, cut, roles[cut].what, err)
			}
		}
	}
}

// TestForgedOpeningsRejected changes one opened row word or one sibling of each WHIR
// level, in both forms (and a word of the zero prefix of a partial-lane stack's raw
// level-0 row); the level's Merkle check rejects it, naming the level.
func TestForgedOpeningsRejected(t *testing.T) {
	rng := testrand.New(t)
	in := newPartialInstance(rng, 15, 1, 4, 10, 0)
	cfg, err := DeriveConfig(in.stackLog, in.rate)
	if err != nil {
		t.Fatal(err)
	}
	honest := in.proveForging(t, -1)
	rawOf := func() *transcript.Proof {
		p := &transcript.Proof{Stream: honest.Stream}
		for _, o := range honest.Openings {
			p.Openings = append(p.Openings, merkle.RawOpening{Leaf: slices.Clone(o.Leaf), Path: slices.Clone(o.Path)})
		}
		return p
	}
	wireOf := func() *transcript.Proof {
		p := &transcript.Proof{Stream: honest.Stream}
		for _, ph := range honest.Phases {
			rows := make([][]uint64, len(ph.Rows))
			for i, r := range ph.Rows {
				rows[i] = slices.Clone(r)
			}
			p.Phases = append(p.Phases, merkle.Phase{Rows: rows, Siblings: slices.Clone(ph.Siblings)})
		}
		return p
	}
	want := func(what string, level int, err error, text string) {
		t.Helper()
		if !errors.Is(err, transcript.ErrInvalidOpening) || !strings.Contains(err.Error(), fmt.Sprintf("open: WHIR level %d:", level)) ||
			!strings.Contains(err.Error(), text) {
			t.Errorf("%s at level %d: err = %v, want that level's Merkle check with %q", what, level, err, text)
		}
	}
	first := 0
	for l := 0; l < cfg.Levels(); l++ {
		j := first + cfg.Queries[l]/2
		p := rawOf()
		o := &p.Openings[j]
		o.Leaf[len(o.Leaf)-1] ^= 1
		want("raw row word", l, in.verify(p), "root mismatch")
		p = rawOf()
		p.Openings[j].Path[1][3] ^= 1
		want("raw sibling", l, in.verify(p), "root mismatch")
		if l == 0 {
			p = rawOf()
			p.Openings[j].Leaf[0] = 1 // lane 63 of a 4-lane stack
			want("raw zero-prefix word", l, in.verify(p), "zero prefix")
		}
		p = wireOf()
		p.Phases[l].Rows[0][0] ^= 1
		want("wire row word", l, in.verify(p), "root mismatch")
		p = wireOf()
		p.Phases[l].Siblings[len(p.Phases[l].Siblings)-1][0] ^= 1
		want("wire sibling", l, in.verify(p), "root mismatch")
		first += cfg.Queries[l]
	}
	if first != len(honest.Openings) {
		t.Fatalf("%d openings, the config has %d queries", len(honest.Openings), first)
	}
}

// shortTranscript is a verifier transcript that misbehaves in one way, to reach the
// opening verifier's checks of what its transcript hands back.
type shortTranscript struct {
	*transcript.Verifier
	dropRow, shortRow, shortPoly bool
}

func (s *shortTranscript) MerklePadded(root merkle.Digest, blockLen int, queries []int, rowWords, leafWords int) ([][]uint64, error) {
	rows, err := s.Verifier.MerklePadded(root, blockLen, queries, rowWords, leafWords)
	if err != nil {
		return rows, err
	}
	switch {
	case s.dropRow:
		rows = rows[1:]
	case s.shortRow:
		rows = slices.Clone(rows)
		rows[0] = rows[0][1:]
	}
	return rows, nil
}

func (s *shortTranscript) RoundPoly(count int, claim field.E, eq *field.E) ([]field.E, error) {
	c, err := s.Verifier.RoundPoly(count, claim, eq)
	if s.shortPoly && err == nil {
		c = c[:2]
	}
	return c, err
}

// TestVerifierArgumentChecks reaches the checks of what the verifier is given rather
// than what the proof says: a transcript handing back too few rows, a short row or a
// short round polynomial; a shape outside the profile; a ring claim without a weight;
// a root that is cut short or not canonical; the query table disagreeing with the ladder.
func TestVerifierArgumentChecks(t *testing.T) {
	rng := testrand.New(t)
	in := newInstance(rng, 15, 1, 13, 0)
	proof := in.proveForging(t, -1)
	sh := commit.Shape{StackLog: in.stackLog, LogInvRate: in.rate, Lanes: in.lanes}
	run := func(tr VerifierTranscript, sh commit.Shape, ring RingClaim) error {
		root, err := ReceiveRoot(tr)
		if err != nil {
			return err
		}
		return VerifyStacked(tr, root, sh, in.place, ring, in.points)
	}
	check := func(what string, err error, sentinel error, text string) {
		t.Helper()
		if (sentinel != nil && !errors.Is(err, sentinel)) || err == nil || !strings.Contains(err.Error(), text) {
			t.Errorf("%s: err = %v, want %v with %q", what, err, sentinel, text)
		}
	}
	v := func() *transcript.Verifier { return transcript.NewVerifier(proof, testLabel, nil) }
	check("a row missing", run(&shortTranscript{Verifier: v(), dropRow: true}, sh, in.ring(false)), nil, "open: WHIR level 0: 222 rows for 223 queries")
	check("a short row", run(&shortTranscript{Verifier: v(), shortRow: true}, sh, in.ring(false)), nil, "open: WHIR level 0: row of 63 words")
	check("a short round polynomial", run(&shortTranscript{Verifier: v(), shortPoly: true}, sh, in.ring(false)), nil, "open: round polynomial has 2 coefficients")
	bad := sh
	bad.Lanes = 0
	check("a shape outside the profile (VerifyStacked)", run(v(), bad, in.ring(false)), ErrShape, "committed lanes")
	tr := v()
	root, _ := ReceiveRoot(tr)
	check("a shape outside the profile (VerifyWHIR)", VerifyWHIR(tr, bad, field.Zero, root, nil), ErrShape, "committed lanes")
	check("a ring claim without a weight", run(v(), sh, RingClaim{Target: in.ringTarget}), ErrClaim, "ring claim without a weight")
	check("no root", run(transcript.NewVerifier(&transcript.Proof{}, testLabel, nil), sh, in.ring(false)), transcript.ErrStreamExhausted, "after 0 scalars")
	check("half a root", run(transcript.NewVerifier(&transcript.Proof{Stream: proof.Stream[:1]}, testLabel, nil), sh, in.ring(false)), transcript.ErrStreamExhausted, "after 1 scalars")
	nc := &transcript.Proof{Stream: slices.Clone(proof.Stream), Openings: proof.Openings}
	nc.Stream[0].C2 = 1
	check("a non-canonical root", run(transcript.NewVerifier(nc, testLabel, nil), sh, in.ring(false)), commit.ErrRoot, "malformed root")

	_, err := DeriveConfig(MinStackLog-1, 1)
	check("DeriveConfig: stack too small", err, ErrShape, "stack log 14, log inverse rate 1")
	_, err = DeriveConfig(MinStackLog, MaxLogInvRate+1)
	check("DeriveConfig: rate too high", err, ErrShape, "log inverse rate 5")
	saved := queryTable[0][0]
	queryTable[0][0] = saved[:2]
	_, err = DeriveConfig(MinStackLog, 1)
	tr = v()
	root, _ = ReceiveRoot(tr)
	errWHIR := VerifyWHIR(tr, sh, field.Zero, root, nil)
	queryTable[0][0] = saved
	check("DeriveConfig: a table row shorter than the ladder", err, ErrShape, "ladder of 3 levels against 2 tabulated query counts")
	check("VerifyWHIR: a table row shorter than the ladder", errWHIR, ErrShape, "ladder of 3 levels against 2 tabulated query counts")
}
