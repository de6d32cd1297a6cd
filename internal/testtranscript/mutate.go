package testtranscript

import (
	"fmt"
	"math/rand/v2"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/transcript"
)

// Mutate returns a copy of p with one random change, for verifier fuzzing: a scalar
// changed (a bit, a component or the whole value), the stream cut or extended, or one
// serialised byte changed in the raw or wire form (p must carry both). ok is false
// when the changed bytes no longer parse, which a caller counts as a rejection.
func Mutate(rng *rand.Rand, p *transcript.Proof) (q *transcript.Proof, what string, ok bool) {
	switch k := rng.IntN(6); k {
	case 0, 1:
		q = &transcript.Proof{Stream: append([]field.E(nil), p.Stream...), Openings: p.Openings, Phases: p.Phases}
		i := rng.IntN(len(q.Stream))
		x := q.Stream[i]
		switch rng.IntN(4) {
		case 0:
			x.C0 ^= 1 << rng.IntN(64)
		case 1:
			x.C2 ^= field.K(rng.Uint64() | 1)
		case 2:
			x = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
		default:
			x = field.Zero
			if q.Stream[i] == field.Zero {
				x = field.One
			}
		}
		q.Stream[i] = x
		return q, fmt.Sprintf("scalar %d", i), true
	case 2:
		q = &transcript.Proof{Openings: p.Openings, Phases: p.Phases}
		if rng.IntN(2) == 0 {
			n := rng.IntN(len(p.Stream))
			q.Stream = p.Stream[:n:n]
			return q, fmt.Sprintf("stream cut to %d", n), true
		}
		q.Stream = append(append([]field.E(nil), p.Stream...), make([]field.E, 1+rng.IntN(3))...)
		return q, "scalars appended", true
	default:
		var data []byte
		wire := k != 3
		if wire {
			data = p.MarshalWire()
		} else {
			data = p.MarshalRaw()
		}
		at := rng.IntN(len(data))
		data[at] ^= byte(1 + rng.IntN(255))
		q = new(transcript.Proof)
		var err error
		if wire {
			err = q.UnmarshalWire(data)
		} else {
			err = q.UnmarshalRaw(data)
		}
		return q, fmt.Sprintf("byte %d of the %v form (%d bytes)", at, map[bool]string{true: "wire", false: "raw"}[wire], len(data)), err == nil
	}
}
