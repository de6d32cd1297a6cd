package recursion

import (
	"errors"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/transcript"
)

func TestVerifyChildDefersExactly(t *testing.T) {
	p, v := childWithValues(t, 4, 1, 11)
	cl, err := VerifyChild(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	c := aggregate.Matrices() // the description: the root's native check builds no circuit
	if err := CheckMatrixClaim(c, cl.Matrix); err != nil {
		t.Fatalf("the child's matrix claim: %v", err)
	}
	if err := CheckKeyClaim(p.Statement, cl.Key); err != nil {
		t.Fatalf("the child's key claim: %v", err)
	}

	// Values that break the lincheck's terminal are refused by VerifyChild itself.
	for name, bad := range map[string]ChildValues{
		"VA":  {VA: v.VA.Add(field.One), VB: v.VB, Key: v.Key},
		"VB":  {VA: v.VA, VB: v.VB.Add(field.One), Key: v.Key},
		"key": {VA: v.VA, VB: v.VB, Key: v.Key.Add(field.One)},
	} {
		if _, err := VerifyChild(p.Proof, p.Statement, bad); !errors.Is(err, lincheck.ErrTerminal) {
			t.Fatalf("a changed %s: %v", name, err)
		}
	}
	// Lies that keep the terminal pass VerifyChild and are caught by the deferred
	// claims' native checks: VA + α·VB fixed; or P raised by one, which raises the
	// lincheck's claim by α⁴ and so its final running sum by α⁴·Π r_t over the round
	// challenges r_t (each round's implied coefficient carries the change), with VA
	// raised by as much.
	a := cl.Alpha
	a4 := a.Square().Square()
	one := field.One
	shifted := ChildValues{VA: v.VA.Add(a), VB: v.VB.Add(one), Key: v.Key}
	cl2, err := VerifyChild(p.Proof, p.Statement, shifted)
	if err != nil {
		t.Fatalf("a terminal-preserving lie on the matrices: %v", err)
	}
	if err := CheckMatrixClaim(c, cl2.Matrix); !errors.Is(err, ErrClaim) {
		t.Fatalf("its matrix claim: %v", err)
	}
	shift := a4
	for _, r := range cl.Matrix.Col.High {
		shift = shift.Mul(r)
	}
	keyLie := ChildValues{VA: v.VA.Add(shift), VB: v.VB, Key: v.Key.Add(one)}
	cl3, err := VerifyChild(p.Proof, p.Statement, keyLie)
	if err != nil {
		t.Fatalf("a terminal-preserving lie on the key table: %v", err)
	}
	if err := CheckKeyClaim(p.Statement, cl3.Key); !errors.Is(err, ErrClaim) {
		t.Fatalf("its key claim: %v", err)
	}
	if err := CheckMatrixClaim(c, cl3.Matrix); !errors.Is(err, ErrClaim) {
		t.Fatalf("its matrix claim: %v", err)
	}
	// A key claim checked against another statement (one key changed) fails.
	other := p.Statement
	ag, _ := aggregate.StatementOf(other)
	ag.PublicKeys = append(ag.PublicKeys[1:], ag.PublicKeys[0])
	if other.Data, err = ag.MarshalJSON(); err != nil {
		t.Fatal(err)
	}
	if err := CheckKeyClaim(other, cl.Key); !errors.Is(err, ErrClaim) {
		t.Fatalf("the key claim against reordered keys: %v", err)
	}
}

// TestChildrenClaimsBatch: two children's matrix claims batch to one true claim on the
// xmss-aggregate circuit; with one child's lie inside, the batched claim is false.
func TestChildrenClaimsBatch(t *testing.T) {
	c := aggregate.Flow.Circuit()
	var claims []MatrixClaim
	var alphas []field.E
	for seed := range uint64(2) {
		p := proveChild(t, 3, 1, 20+seed)
		v, err := ChildValuesOf(p.Proof, p.Statement)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := VerifyChild(p.Proof, p.Statement, v)
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, cl.Matrix)
		alphas = append(alphas, cl.Alpha)
	}
	label := []byte("recursion-children-test")
	run := func(cls []MatrixClaim) (MatrixClaim, error) {
		pr := transcript.NewProver(label, nil)
		if _, err := BatchMatrixClaims(pr, c, cls); err != nil {
			t.Fatal(err)
		}
		return VerifyMatrixClaims(transcript.NewVerifier(pr.Proof(), label, nil), c.LogSize(), cls)
	}
	out, err := run(claims)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckMatrixClaim(c, out); err != nil {
		t.Fatalf("batched children's claims: %v", err)
	}
	lie := append([]MatrixClaim(nil), claims...)
	lie[1].VA = lie[1].VA.Add(alphas[1])
	lie[1].VB = lie[1].VB.Add(field.One)
	out, err = run(lie)
	if err == nil {
		err = CheckMatrixClaim(c, out)
	}
	if !errors.Is(err, ErrClaim) && !errors.Is(err, ErrBatch) {
		t.Fatalf("a lie inside the batch: %v", err)
	}
}
