package lincheck

import (
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/par"
)

// A circuit's first serialWalksFirst transpose walks on two workers get one; later
// walks, walks on one worker and another circuit's first walk are counted apart.
func TestWalkWorkers(t *testing.T) {
	c := new(circuit.Circuit)
	two := par.New(nil, 2)
	for i := 1; i <= serialWalksFirst+2; i++ {
		want := 1
		if i > serialWalksFirst {
			want = 2
		}
		if got := walkWorkers(c, two).N(); got != want {
			t.Fatalf("walk %d on 2 workers gets %d, want %d", i, got, want)
		}
	}
	if got := walkWorkers(c, par.Serial()).N(); got != 1 {
		t.Fatalf("walk on 1 worker gets %d", got)
	}
	if got := walkWorkers(new(circuit.Circuit), two).N(); got != 1 {
		t.Fatalf("another circuit's first walk gets %d workers, want 1", got)
	}
	if got := walkWorkers(&toyCircuit{}, two).N(); got != 2 {
		t.Fatalf("a circuit that plans no segments gets %d workers, want 2", got)
	}
}
