package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/graph"
)

// progress is one status line on a terminal, redrawn in place: a fixed label, the
// part in hand, and the time elapsed since it started (and, for counted work, the
// time left at the rate so far). A nil *progress draws nothing.
type progress struct {
	w     io.Writer
	label string
	start time.Time
	now   func() time.Time

	mu          sync.Mutex
	done, total int    // counted work (total 0: not counted)
	part        string // what runs now
	stop        chan struct{}
	stopped     chan struct{}
	once        sync.Once
}

// newProgress starts a status line on w when w is a terminal (nil otherwise), redrawn
// every interval.
func newProgress(w io.Writer, label string, total int) *progress {
	if !terminal(w) {
		return nil
	}
	p := &progress{w: w, label: label, total: total, start: time.Now(), now: time.Now, stop: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.draw()
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

// line is the status text: "proving leaves 2/4, 3.1 s elapsed, about 3.1 s left".
func (p *progress) line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := p.now().Sub(p.start)
	s := p.label
	if p.total > 0 {
		s += fmt.Sprintf(" %d/%d", p.done, p.total)
	}
	if p.part != "" {
		s += ": " + p.part
	}
	s += fmt.Sprintf(", %.1f s elapsed", elapsed.Seconds())
	if p.total > 0 && p.done > 0 && p.done < p.total {
		left := elapsed / time.Duration(p.done) * time.Duration(p.total-p.done)
		s += fmt.Sprintf(", about %.1f s left", left.Seconds())
	}
	return s
}

func (p *progress) draw() {
	fmt.Fprintf(p.w, "\r\x1b[K%s", p.line())
}

// add counts n more parts done.
func (p *progress) add(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done += n
	p.mu.Unlock()
	p.draw()
}

// setPart names what runs now; it redraws only when the name changes.
func (p *progress) setPart(s string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	changed := p.part != s
	p.part = s
	p.mu.Unlock()
	if changed {
		p.draw()
	}
}

// stages returns ctx made to name each stage on the line as it starts.
func (p *progress) stages(ctx context.Context) context.Context {
	if p == nil {
		return ctx
	}
	return graph.WithStageStart(ctx, p.setPart)
}

// finish stops and clears the status line (once; later calls do nothing).
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		close(p.stop)
		<-p.stopped
		fmt.Fprint(p.w, "\r\x1b[K")
	})
}
