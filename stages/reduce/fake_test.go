package reduce

import (
	"errors"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/field"
)

// fakeTranscript is a minimal hash-chained transcript for the reduction tests:
// every sent value is absorbed, and challenges are derived from the chain, so a
// changed stream value changes every later challenge. The prover appends to
// stream; the verifier reads it back.
type fakeTranscript struct {
	state  blake2s.Digest
	stream []field.E
	pos    int
}

var errFakeExhausted = errors.New("fake transcript: stream exhausted")

func (t *fakeTranscript) absorb(v field.E) {
	b := v.Bytes()
	t.state = blake2s.Sum256(append(t.state[:], b[:]...))
}

func (t *fakeTranscript) Sample() field.E {
	t.state = blake2s.Sum256(append(t.state[:], 's'))
	e, err := field.EFromBytes(t.state[:24])
	if err != nil {
		panic(err)
	}
	return e
}

func (t *fakeTranscript) Send(v field.E) {
	t.stream = append(t.stream, v)
	t.absorb(v)
}

func (t *fakeTranscript) SendRoundPoly(coeffs []field.E, eq bool) {
	fixed := 1
	if eq {
		fixed = 0
	}
	for i, c := range coeffs {
		if i != fixed {
			t.Send(c)
		}
	}
}

func (t *fakeTranscript) Receive() (field.E, error) {
	if t.pos >= len(t.stream) {
		return field.Zero, errFakeExhausted
	}
	v := t.stream[t.pos]
	t.pos++
	t.absorb(v)
	return v, nil
}

func (t *fakeTranscript) RoundPoly(count int, claim field.E, eq *field.E) ([]field.E, error) {
	fixed := 1
	if eq != nil {
		fixed = 0
	}
	c := make([]field.E, count)
	for i := range c {
		if i == fixed {
			continue
		}
		v, err := t.Receive()
		if err != nil {
			return nil, err
		}
		c[i] = v
	}
	if eq == nil {
		c[1] = claim
		for _, v := range c[2:] {
			c[1] = c[1].Add(v)
		}
	} else {
		sum := field.Zero
		for _, v := range c[1:] {
			sum = sum.Add(v)
		}
		c[0] = claim.Add(eq.Mul(sum))
	}
	return c, nil
}

// verifierCopy returns a fresh verifier over the prover's stream.
func (t *fakeTranscript) verifierCopy() *fakeTranscript {
	return &fakeTranscript{stream: append([]field.E(nil), t.stream...)}
}
