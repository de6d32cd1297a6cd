package recursion

import (
	"errors"
	"fmt"
	"github.com/leanpipe/leanpipe/buffers"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// TestFillSlotsWalks checks fillSlots, which walks its 64-slot groups two or four at a
// time (a lone one beside a spare vector), against each group solved alone and
// packed, at slot counts that take one group, an odd number, and walks of four, on 1
// and 2 workers; and that a slot's error is returned.
func TestFillSlotsWalks(t *testing.T) {
	sb := squareLayout(10)
	c := sb.compile()
	rng := rand.New(rand.NewPCG(3, 5))
	for _, nLog := range []int{3, 6, 7, 8, 9, 10} {
		slots := 1 << nLog
		n := slots - slots/8 // padding slots take slot 0's inputs
		xs := make([]field.E, n*sb.Units)
		for i := range xs {
			xs[i] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
		}
		set := func(v []uint64, lane uint, s int) error {
			for u := range sb.Units {
				setLaneE(v, lane, 64+3*KBits*u, xs[s*sb.Units+u])
			}
			return nil
		}
		words := slots * c.Size() / 64
		want := [3][]field.K{make([]field.K, words), make([]field.K, words), make([]field.K, words)}
		for g := range (slots + 63) / 64 {
			v, va, vb := make([]uint64, c.Size()), make([]uint64, c.Size()), make([]uint64, c.Size())
			v[c.ConstCol()] = ^uint64(0)
			lanes := min(64, slots-64*g)
			for j := range lanes {
				s := 64*g + j
				if s >= n {
					s = 0
				}
				set(v, uint(j), s)
			}
			c.Solve(v, va, vb)
			off := g * c.Size()
			for k, src := range [][]uint64{v, va, vb} {
				c.PackLanes(want[k][off:off+lanes*c.Size()/64], src, lanes)
			}
		}
		for _, workers := range []int{1, 2, -2} {
			// -2: two workers under buffers.Poison, so the walks' vectors, which
			// fillSlots does not clear, hold garbage where the walk writes.
			t.Run(fmt.Sprintf("2^%d slots, %d workers", nLog, workers), func(t *testing.T) {
				if workers < 0 {
					workers = -workers
					defer buffers.Poison(0x6b)()
				}
				got := [3][]field.K{make([]field.K, words), make([]field.K, words), make([]field.K, words)}
				if err := fillSlots(c, n, set)(par.New(nil, workers), nLog, got[0], got[1], got[2]); err != nil {
					t.Fatal(err)
				}
				for k, name := range []string{"witness", "A rows", "B rows"} {
					if !slices.Equal(got[k], want[k]) {
						t.Errorf("%s differ from the groups solved alone", name)
					}
				}
			})
		}
	}
	bad := errors.New("slot 70 refused")
	err := fillSlots(c, 100, func(v []uint64, lane uint, s int) error {
		if s == 70 {
			return bad
		}
		return nil
	})(par.New(nil, 2), 7, make([]field.K, 128*c.Size()/64), make([]field.K, 128*c.Size()/64), make([]field.K, 128*c.Size()/64))
	if !errors.Is(err, bad) {
		t.Errorf("a slot's error: got %v", err)
	}
}
