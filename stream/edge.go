package stream

import (
	"fmt"

	"github.com/reugn/go-streams"
)

// Envelope is the one value type travelling on a typed edge: a value with the
// sequence number its source gave it (0, 1, 2, … in source order) and, when the
// source could not produce a valid value, the error instead.
type Envelope[T any] struct {
	Seq uint64
	Val T
	Err error
}

// recv reads the next envelope from an untyped go-streams channel. A value of
// another type is a wiring mistake and panics.
func recv[T any](ch <-chan any) (Envelope[T], bool) {
	v, ok := <-ch
	if !ok {
		return Envelope[T]{}, false
	}
	e, is := v.(Envelope[T])
	if !is {
		panic(fmt.Sprintf("stream: edge carries %T, want %T", v, e))
	}
	return e, true
}

// transmit forwards an outlet into an inlet and closes the inlet at the end, as
// go-streams operators do in Via and To.
func transmit(from streams.Outlet, to streams.Inlet) {
	for v := range from.Out() {
		to.In() <- v
	}
	close(to.In())
}
