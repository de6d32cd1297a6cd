package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The status line's figures: done/total, the time elapsed since the start, and the
// time left at the rate so far.
func TestProgressLine(t *testing.T) {
	start := time.Unix(1000, 0)
	now := start
	p := &progress{label: "proving leaves", total: 4, start: start, now: func() time.Time { return now }}
	if got, want := p.line(), "proving leaves 0/4, 0.0 s elapsed"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	now = start.Add(3 * time.Second)
	p.done, p.part = 1, "zerocheck"
	if got, want := p.line(), "proving leaves 1/4: zerocheck, 3.0 s elapsed, about 9.0 s left"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	now = start.Add(8 * time.Second)
	p.done = 4
	if got, want := p.line(), "proving leaves 4/4: zerocheck, 8.0 s elapsed"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	var none *progress // not a terminal: every method is a no-op
	none.add(1)
	none.setPart("x")
	if ctx := context.Background(); none.stages(ctx) != ctx {
		t.Fatal("a no-op progress changed the context")
	}
	none.finish()
}

// prove's stage table goes to stdout, as run's does; logs stay on stderr.
func TestProveStageTableOnStdout(t *testing.T) {
	code, o, e := run(t, "prove", "--n", "8", "--out", t.TempDir()+"/p.bin")
	if code != 0 || !strings.Contains(o, "zerocheck") || !strings.Contains(o, "total") || strings.Contains(e, "zerocheck ") {
		t.Fatalf("prove: exit %d, stdout %q, stderr %q", code, o, e)
	}
}
