package zerocheck

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// Every dispatch level must give the portable kernels' output.
func TestKernelLevels(t *testing.T) {
	rng := testrand.New(t)
	d := domain()
	in := randInput(rng, 17, 14, 1)
	var want []string
	t.Logf("levels run: %v", Kernels.Levels())
	for _, l := range Kernels.Levels() {
		restore := cpu.SetLevel(l)
		for range 200 {
			a, b, c := rng.Uint64(), rng.Uint64(), rng.Uint64()
			var got, ref [3][8]uint64
			d.extend3(a, b, c, &got)
			d.extend3Generic(a, b, c, &ref)
			if got != ref {
				restore()
				t.Fatalf("level %v: extend3 differs from the generic kernel", l)
			}
		}
		for n := range 20 {
			var a, b, c [groupSize]field.K
			for x := range a {
				if n%4 == 0 && x%3 == 0 {
					continue // zero words
				}
				a[x], b[x], c[x] = field.K(rng.Uint64()), field.K(rng.Uint64()), field.K(rng.Uint64())
			}
			var got, ref [1 << nMedium][8]uint64
			d.groupPlanes(a[:], b[:], c[:], &got)
			d.groupPlanesGeneric(a[:], b[:], c[:], &ref)
			if got != ref {
				restore()
				t.Fatalf("level %v: groupPlanes differs from the generic kernel", l)
			}
			var gotB, refB [1 << nMedium][skipSize]byte
			planesBytes(&got, &gotB)
			planesBytesGeneric(&got, &refB)
			if gotB != refB {
				restore()
				t.Fatalf("level %v: planesBytes differs from the generic kernel", l)
			}
			var bytes [1 << nMedium][skipSize]byte
			for k := range bytes {
				for j := range bytes[k] {
					bytes[k][j] = byte(rng.Uint32())
				}
			}
			var gotV, refV [skipSize]field.E
			d.mediumSum(&bytes, &gotV)
			d.mediumSumGeneric(&bytes, &refV)
			if gotV != refV {
				restore()
				t.Fatalf("level %v: mediumSum differs from the generic kernel", l)
			}
		}
		var basis, basis1 [skipSize]field.E
		for i := range basis {
			basis[i] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
			basis1[i] = basis[i].Mul(basis[i])
		}
		t0, t1 := new(byteTables), new(byteTables)
		t0.fill(&basis)
		t1.fill(&basis1)
		for _, n := range []int{0, 1, 5, 7, 8, 9, 15, 16, 17, 23, 64, 67} {
			src := make([]field.K, 2*n)
			for i := range src {
				src[i] = field.K(rng.Uint64())
			}
			for _, withSum := range []bool{false, true} {
				var sg, sr []field.E
				if withSum {
					sg, sr = make([]field.E, n), make([]field.E, n)
				}
				og, or := make([]field.E, n), make([]field.E, n)
				t0.evalSplit(og, sg, src)
				t0.evalSplitGeneric(or, sr, src)
				if fmt.Sprint(og, sg) != fmt.Sprint(or, sr) {
					restore()
					t.Fatalf("level %v: evalSplit(n=%d, sum=%v) differs from the generic kernel", l, n, withSum)
				}
			}
			for _, withSum := range []bool{false, true} {
				var sg, sr []field.E
				if withSum {
					sg, sr = make([]field.E, n/2), make([]field.E, n/2)
				}
				eg, og, er, or := make([]field.E, n/2), make([]field.E, n/2), make([]field.E, n/2), make([]field.E, n/2)
				evalHalves(t0, t1, eg, og, sg, src[:4*(n/2)])
				evalHalvesGeneric(t0, t1, er, or, sr, src[:4*(n/2)])
				if fmt.Sprint(eg, og, sg) != fmt.Sprint(er, or, sr) {
					restore()
					t.Fatalf("level %v: evalHalves(n=%d, sum=%v) differs from the generic kernel", l, n/2, withSum)
				}
			}
		}
		stream, _ := proveStream(t, in, 2)
		restore()
		var s []string
		for _, v := range stream {
			s = append(s, fmt.Sprint(v))
		}
		if want == nil {
			want = s
			continue
		}
		if fmt.Sprint(s) != fmt.Sprint(want) {
			t.Fatalf("level %v: proof stream differs from the generic level's", l)
		}
	}
}
