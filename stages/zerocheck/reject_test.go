package zerocheck

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/transcript"
)

// TestVerifyRejectReasons: the zerocheck verifier checks the shape of its stream and
// the variable count (the values it reads are pinned by the lincheck's terminal check,
// which flows' TestForgedScalarsRejectedByTheirCheck exercises). A stream cut at any
// length fails at the read of that very scalar: a coset value, a round polynomial,
// v_a or v_b, each named.
func TestVerifyRejectReasons(t *testing.T) {
	rng := testrand.New(t)
	const m = 14
	stream, _ := proveStream(t, randInput(rng, m, 0, 0), 1)
	rounds := m - KSkip
	if want := skipSize + 2*rounds + 2; len(stream) != want {
		t.Fatalf("stream of %d scalars, want %d", len(stream), want)
	}
	for cut := 0; cut < len(stream); cut++ {
		var step string
		switch {
		case cut < skipSize:
			step = fmt.Sprintf("coset value %d", cut)
		case cut < skipSize+2*rounds:
			step = fmt.Sprintf("round %d", (cut-skipSize)/2)
		case cut == skipSize+2*rounds:
			step = "v_a"
		default:
			step = "v_b"
		}
		_, err := verifyStream(stream[:cut], m)
		want := fmt.Sprintf("zerocheck: %s: transcript: proof stream exhausted after %d scalars", step, cut)
		if !errors.Is(err, transcript.ErrStreamExhausted) || err.Error() != want {
			t.Fatalf("cut at %d: err = %v, want %q", cut, err, want)
		}
	}
	if _, err := verifyStream(stream, MinVars-1); !errors.Is(err, ErrTooSmall) {
		t.Fatalf("m = %d: err = %v, want ErrTooSmall", MinVars-1, err)
	}
	if _, err := verifyStream(stream, 63); err == nil || !strings.Contains(err.Error(), "m = 63 is out of range") {
		t.Fatalf("m = 63: err = %v, want the range check's", err)
	}
}
