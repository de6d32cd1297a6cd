package observe

import (
	"time"

	"github.com/leanpipe/leanpipe/stream"
)

// Join returns one stream.Observer telling each non-nil observer in turn, or nil
// when there is none.
func Join(obs ...stream.Observer) stream.Observer {
	var j joined
	for _, o := range obs {
		if o != nil {
			j = append(j, o)
		}
	}
	switch len(j) {
	case 0:
		return nil
	case 1:
		return j[0]
	}
	return j
}

type joined []stream.Observer

func (j joined) Attach(p *stream.Prover) {
	for _, o := range j {
		o.Attach(p)
	}
}

func (j joined) Proved(r stream.Result, start time.Time) {
	for _, o := range j {
		o.Proved(r, start)
	}
}
