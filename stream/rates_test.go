package stream

import (
	"bytes"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
)

// TestStreamRates: signatures proved count as signatures/s, compressions as
// compressions/s, never one as the other.
func TestStreamRates(t *testing.T) {
	c := newCollector(&probe{}, Options{}.withDefaults())
	c.proved(flows.Proved{}, aggregate.FlowName, 4)
	m := c.snapshot()
	var b bytes.Buffer
	m.WriteText(&b)
	if m.SignaturesPerS <= 0 || m.CompressionsPerS != 0 || !strings.Contains(b.String(), "signatures/s") || strings.Contains(b.String(), "compressions/s") {
		t.Fatalf("signatures only: %+v\n%s", m, b.String())
	}
	c.proved(flows.Proved{}, flows.Name, 8)
	m = c.snapshot()
	b.Reset()
	m.WriteText(&b)
	if m.CompressionsPerS <= 0 || !strings.Contains(b.String(), "compressions/s, ") || !strings.Contains(b.String(), "signatures/s") {
		t.Fatalf("both: %+v\n%s", m, b.String())
	}
}
