package aggregate

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// The filler's witness, A0·w and B0·w do not depend on the workers, which cut the
// groups of 64 slots into batches differently at each count, and every slot holds
// its own signer's block (or signer 0's past the last signer), at 1 to 4 workers:
// six groups to solve (five live, one of padding) of 512 slots, four (three live)
// of 256 and two of 128.
func TestFillIndependentOfWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("solves twelve groups of 64 blocks of 2^21 columns, four times")
	}
	base := genInput(t, 3, 7)
	c := New()
	words := c.Size() / 64
	for _, size := range []struct{ signers, nLog int }{{64*4 + 5, 9}, {64*2 + 3, 8}, {70, 7}} {
		in := &Input{Message: base.Message, Epoch: base.Epoch}
		for s := range size.signers {
			in.Signers = append(in.Signers, base.Signers[(s*s+s/7)%3])
		}
		nLog := size.nLog
		var want [3][]field.K
		got := [3][]field.K{make([]field.K, words<<nLog), make([]field.K, words<<nLog), make([]field.K, words<<nLog)}
		for _, workers := range []int{1, 2, 3, 4} {
			for k := range got {
				for i := range got[k] {
					got[k][i] = field.K(i) // what was there before must not matter
				}
			}
			if err := c.fill(par.New(nil, workers), in, nLog, got[0], got[1], got[2], nil); err != nil {
				t.Fatal(err)
			}
			if workers == 1 {
				for k := range got {
					want[k] = slices.Clone(got[k])
				}
				continue
			}
			for k := range got {
				if i := slices.Compare(got[k], want[k]); i != 0 {
					t.Fatalf("%d signers, workers %d: vector %d differs from 1 worker", size.signers, workers, k)
				}
			}
		}
		alone := make([]field.K, words)
		for _, s := range []int{0, 63, 64, 200, 64*4 + 4, 64*4 + 5, 64*5 + 3, 511} {
			if s >= 1<<nLog {
				continue
			}
			src := s
			if src >= in.Len() {
				src = 0
			}
			c.PackLanes(alone, c.Solve(Plan(in.Block(src), &in.Signers[src].Signature)), 1)
			if !slices.Equal(want[0][s*words:(s+1)*words], alone) {
				t.Fatalf("%d signers: slot %d is not signer %d's block solved alone", size.signers, s, src)
			}
		}
	}
}

// The native check names the same invalid signatures, in index order, at every
// worker count: here every fifth of 40 signers has a changed tip.
func TestCheckOnNamesEveryInvalidSignature(t *testing.T) {
	base := genInput(t, 4, 9)
	in := &Input{Message: base.Message, Epoch: base.Epoch}
	var wantBad []int
	for s := range 40 {
		sg := base.Signers[s%4]
		if s%5 == 2 {
			sg.Signature.Tips[s%len(sg.Signature.Tips)][0] ^= 1
			wantBad = append(wantBad, s)
		}
		in.Signers = append(in.Signers, sg)
	}
	for _, workers := range []int{1, 2, 3} {
		var bad *InvalidSignatures
		if err := in.CheckOn(par.New(nil, workers)); !errors.As(err, &bad) {
			t.Fatalf("workers %d: got %v, want *InvalidSignatures", workers, err)
		}
		var got []int
		for _, b := range bad.Bad {
			got = append(got, b.Index)
		}
		if !slices.Equal(got, wantBad) || bad.Of != 40 {
			t.Fatalf("workers %d: invalid %v of %d, want %v of 40", workers, got, bad.Of, wantBad)
		}
	}
	if err := base.CheckOn(par.New(nil, 2)); err != nil {
		t.Fatalf("valid signers: %v", err)
	}
}

// A panic while setting a group's inputs (here a routing that is not a
// permutation) is the fill's error at 1 and 2 workers: it never hangs, whether the
// groups are one batch (set before the walk) or two (the second set by a worker
// while the other walks the first).
func TestFillPanicReturns(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 256 and 512 slots")
	}
	base := genInput(t, 3, 7)
	c := New()
	words := c.Size() / 64
	for _, size := range []struct {
		signers, nLog int
		bad           []int
	}{{64*2 + 3, 8, []int{0, 70, 130}}, {64*4 + 5, 9, []int{0, 260}}} {
		in := &Input{Message: base.Message, Epoch: base.Epoch}
		for s := range size.signers {
			in.Signers = append(in.Signers, base.Signers[s%3])
		}
		wit, a, b := make([]field.K, words<<size.nLog), make([]field.K, words<<size.nLog), make([]field.K, words<<size.nLog)
		for _, workers := range []int{1, 2} {
			for _, bad := range size.bad {
				errc := make(chan error, 1)
				go func() {
					errc <- c.fill(par.New(nil, workers), in, size.nLog, wit, a, b, func(s int, a *Assignment) {
						if s == bad {
							a.Src[1] = a.Src[0]
						}
					})
				}()
				select {
				case err := <-errc:
					if pe := (*par.PanicError)(nil); !errors.As(err, &pe) {
						t.Fatalf("%d signers, workers %d, bad slot %d: fill returned %v, want the panic", size.signers, workers, bad, err)
					}
				case <-time.After(time.Minute):
					t.Fatalf("%d signers, workers %d, bad slot %d: fill still running after a minute", size.signers, workers, bad)
				}
			}
		}
	}
}
