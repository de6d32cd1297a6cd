package lincheck

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/transcript"
)

// offPublic is a public term whose value is off by one from the table's: the claim
// the verifier adds for it is forged.
type offPublic struct{ *Table }

func (p offPublic) Eval(tau, chiOut []field.E) field.E {
	return p.Table.Eval(tau, chiOut).Add(field.One)
}

// TestVerifyRejectReasons forges each value the lincheck verifier reads or is given
// and requires the check guarding it to reject it: every round polynomial coefficient
// and every slice value sent (the terminal check, ErrTerminal), each zerocheck claim
// and the public term's value (the terminal check), the stream cut at any length (the
// read of that scalar, named), too few coordinates (ErrShape) and a window that does
// not fit (ErrPublic, by its reason).
func TestVerifyRejectReasons(t *testing.T) {
	rng := testrand.New(t)
	win := Window{Offset: 128, Log: 6, Mask: randMask(rng, 6)}
	pc := newPublicCase(rng, 9, 3, 6, win)
	rounds := pc.c.LogSize() - KSkip
	for _, public := range []bool{false, true} {
		var tr *fakeTranscript
		verify := func(v *fakeTranscript, zc ZerocheckClaims, pub Public) error {
			_, err := VerifyPublic(v, pc.c, zc, pub)
			return err
		}
		var pub Public
		if public {
			tr, _ = pc.prove(1)
			pub = pc.table
		} else {
			tr, _ = pc.lincheckCase.prove(1)
		}
		if err := verify(tr.VerifierCopy(), pc.zc, pub); err != nil {
			t.Fatalf("public=%v: honest proof rejected: %v", public, err)
		}
		if len(tr.Stream) != 2*rounds+KBits {
			t.Fatalf("stream of %d scalars", len(tr.Stream))
		}
		for i := range tr.Stream {
			v := tr.VerifierCopy()
			v.Stream[i] = v.Stream[i].Add(field.E{C2: 1})
			what := fmt.Sprintf("round %d coefficient", i/2)
			if i >= 2*rounds {
				what = fmt.Sprintf("slice value %d", i-2*rounds)
			}
			if err := verify(v, pc.zc, pub); !errors.Is(err, ErrTerminal) {
				t.Fatalf("public=%v: forged %s: err = %v, want ErrTerminal", public, what, err)
			}
		}
		for k, forge := range []func(*ZerocheckClaims){
			func(zc *ZerocheckClaims) { zc.VA = zc.VA.Add(field.One) },
			func(zc *ZerocheckClaims) { zc.VB = zc.VB.Add(field.One) },
			func(zc *ZerocheckClaims) { zc.VC = zc.VC.Add(field.One) },
			func(zc *ZerocheckClaims) { zc.ZSkip = zc.ZSkip.Add(field.One) },
			func(zc *ZerocheckClaims) { zc.Chi[0] = zc.Chi[0].Add(field.One) }, // a round's coordinate
		} {
			zc := pc.zc
			zc.Chi = append([]field.E(nil), pc.zc.Chi...)
			forge(&zc)
			if err := verify(tr.VerifierCopy(), zc, pub); !errors.Is(err, ErrTerminal) {
				t.Fatalf("public=%v: zerocheck claim %d forged: err = %v, want ErrTerminal", public, k, err)
			}
		}
		for cut := 0; cut < len(tr.Stream); cut++ {
			v := tr.VerifierCopy()
			v.Stream = v.Stream[:cut]
			step := fmt.Sprintf("round %d", cut/2)
			if cut >= 2*rounds {
				step = fmt.Sprintf("slice %d", cut-2*rounds)
			}
			want := fmt.Sprintf("lincheck: %s: transcript: proof stream exhausted after %d scalars", step, cut)
			if err := verify(v, pc.zc, pub); !errors.Is(err, transcript.ErrStreamExhausted) || err.Error() != want {
				t.Fatalf("public=%v: cut at %d: err = %v, want %q", public, cut, err, want)
			}
		}
		// A slot coordinate enters the terminal only through the public term; without
		// one it is handed on in the claim's point, for the ring switch and the
		// opening to pin.
		zc := pc.zc
		zc.Chi = append([]field.E(nil), pc.zc.Chi...)
		zc.Chi[rounds] = zc.Chi[rounds].Add(field.One)
		cl, err := VerifyPublic(tr.VerifierCopy(), pc.c, zc, pub)
		switch {
		case public && !errors.Is(err, ErrTerminal):
			t.Fatalf("forged slot coordinate with a public term: err = %v, want ErrTerminal", err)
		case !public && (err != nil || cl.Point[rounds] != zc.Chi[rounds]):
			t.Fatalf("forged slot coordinate: err = %v, or it is not handed on in the point", err)
		}
		if public {
			if err := verify(tr.VerifierCopy(), pc.zc, offPublic{pc.table}); !errors.Is(err, ErrTerminal) {
				t.Fatalf("forged public value: err = %v, want ErrTerminal", err)
			}
		}
	}
	short := pc.zc
	short.Chi = short.Chi[:rounds-1]
	if _, err := Verify(&fakeTranscript{Verifying: true}, pc.c, short); !errors.Is(err, ErrShape) ||
		!strings.Contains(err.Error(), fmt.Sprintf("%d coordinates for %d rounds", rounds-1, rounds)) {
		t.Fatalf("short point: err = %v, want ErrShape naming the counts", err)
	}
	for _, c := range []struct {
		w    Window
		want string
	}{
		{Window{Offset: 0, Log: -1}, "window of 2^-1 columns"},
		{Window{Offset: 0, Log: 17}, "window of 2^17 columns"},
		{Window{Offset: 480, Log: 6}, "window [480, 544) outside a block of 2^9 columns"},
		{Window{Offset: -64, Log: 6}, "outside a block"},
		{Window{Offset: 0, Log: 7, Mask: []uint64{1}}, "mask of 1 words for 2^7 columns"},
	} {
		_, err := VerifyPublic(&fakeTranscript{Verifying: true}, pc.c, pc.zc, &Table{W: c.w})
		if !errors.Is(err, ErrPublic) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("window %+v: err = %v, want ErrPublic with %q", c.w, err, c.want)
		}
	}
}
