package aggregate

import (
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// Random permutations are routed: the reference model of the pruned network sends
// src[o] to every read output o, at every width the recursion meets.
func TestBenesRoutesPermutations(t *testing.T) {
	r := testrand.New(t)
	for _, n := range []int{2, 4, 8, 16, 128} {
		for _, need := range []int{1, n / 2, n - 1, n} {
			if need < 1 {
				continue
			}
			for trial := 0; trial < 200; trial++ {
				src := r.Perm(n)
				ctl := benesRoute(src, need)
				if len(ctl) != benesSwitches(n, need) {
					t.Fatalf("n=%d need=%d: %d controls, want %d", n, need, len(ctl), benesSwitches(n, need))
				}
				in := make([]int, n)
				for i := range in {
					in[i] = i
				}
				out, err := benesApply(in, need, ctl)
				if err != nil {
					t.Fatal(err)
				}
				for o := 0; o < need; o++ {
					if out[o] != src[o] {
						t.Fatalf("n=%d need=%d: output %d got input %d, want %d", n, need, o, out[o], src[o])
					}
				}
			}
		}
	}
	t.Logf("pruned network on %d lanes for %d outputs: %d switches (full: %d)", RouteLanes, RouteOutputs, RouteControls, benesSwitches(RouteLanes, RouteLanes))
}

// One router routing permutations of every width in turn gives each the bits a
// fresh one gives: nothing of an earlier route (a wider one's tables, a longer
// control list) leaks into a later one.
func TestRouterReuse(t *testing.T) {
	r := testrand.New(t)
	var rt router
	for trial := 0; trial < 400; trial++ {
		n := []int{2, 4, 8, 16, 32, 64, 128}[r.IntN(7)]
		need := 1 + r.IntN(n)
		src := r.Perm(n)
		got := rt.route(src, need)
		want := benesRoute(src, need)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (n=%d need=%d): the reused router's bits differ from a fresh one's", trial, n, need)
		}
	}
}

// The witness's per-lane work allocates nothing once its memory is warm: planning
// into a kept assignment and setting a group's inputs (whose routing a fresh
// allocation per lane made the witness stage fault pages in on every proof).
func TestSetGroupInputsAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	valid, _ := loadKAT(t)
	k := valid[0]
	c := New()
	w := make([]uint64, c.Size())
	var a Assignment
	var gi groupInputs
	lanes := []*Assignment{&a, &a, &a}
	allocs := testing.AllocsPerRun(20, func() {
		planInto(&a, k.st, &k.sig)
		c.setGroupInputs(w, lanes, &gi)
	})
	if allocs != 0 {
		t.Errorf("planInto and setGroupInputs allocate %.0f times per group, want 0", allocs)
	}
}

// setGroupInputs writes the words that clearing the input columns and SetInputs
// lane by lane write, over stale vectors, for full and partial groups of valid and
// forced (re-routed, re-laid-out) assignments.
func TestSetGroupInputsMatchesSetInputs(t *testing.T) {
	valid, _ := loadKAT(t)
	r := testrand.New(t)
	c := New()
	var pool []*Assignment
	for _, k := range valid {
		pool = append(pool, Plan(k.st, &k.sig))
		for _, f := range forcedLayouts(t, k) {
			a := Plan(k.st, &k.sig)
			f.apply(a)
			if checkPermutation(&a.Src) == nil {
				pool = append(pool, a)
			}
		}
	}
	want, got := make([]uint64, c.Size()), make([]uint64, c.Size())
	var gi groupInputs
	for _, n := range []int{1, 2, 37, 63, 64, 64} {
		for i := range want {
			want[i] = r.Uint64()
		}
		copy(got, want)
		as := make([]*Assignment, n)
		for j := range as {
			as[j] = pool[r.IntN(len(pool))]
		}
		for _, col := range c.Inputs() {
			want[col] = 0
		}
		want[ConstCol] = 0
		for j, a := range as {
			c.SetInputs(want, uint(j), a)
		}
		c.setGroupInputs(got, as, &gi)
		for col := range want {
			if got[col] != want[col] {
				t.Fatalf("%d lanes: column %d (%s) is %#x, SetInputs gives %#x", n, col, RegionOf(col), got[col], want[col])
			}
		}
	}
}
