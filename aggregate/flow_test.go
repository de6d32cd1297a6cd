package aggregate

import (
	"context"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
)

// Two KAT signatures proved and verified through flows.Prove with the circuit's flow.
func TestFlowProveVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("proves 8 blocks of 2^22 columns")
	}
	valid, _ := loadKAT(t)
	in := Signatures{{valid[0].st, valid[0].sig}, {valid[3].st, valid[3].sig}}
	f := NewFlow()
	p, err := flows.Prove(context.Background(), flows.Request{Flow: f, Input: in, LogInvRate: 1}, flows.ProveOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Verify(p.Proof, p.Statement); err != nil {
		t.Fatalf("verify: %v", err)
	}
	t.Logf("proof of %d signatures verified", in.Len())
}
