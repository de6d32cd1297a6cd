package ntt

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// The forward transform evaluates the novel-basis polynomial at q = 0..2^d−1.
func TestForwardIsNovelBasisEvaluation(t *testing.T) {
	rng := testrand.New(t)
	for d := 0; d <= 8; d++ {
		p := NewPlan(d)
		coeffs := randK(rng, 1<<d)
		v := slices.Clone(coeffs)
		p.ForwardK(v, par.New(nil, 1))
		for q := range 1 << d {
			if want := slowEvalK(coeffs, uint64(q), d); v[q] != want {
				t.Fatalf("d=%d q=%d: got %v want %v", d, q, v[q], want)
			}
		}
		ce := randE(rng, 1<<d)
		ve := slices.Clone(ce)
		p.ForwardE(ve, par.New(nil, 2))
		for q := range 1 << d {
			if want := slowEvalE(ce, uint64(q), d); ve[q] != want {
				t.Fatalf("E d=%d q=%d: got %v want %v", d, q, ve[q], want)
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	dims := []int{0, 1, 3, 7, 12}
	if !testing.Short() {
		dims = append(dims, 15)
	}
	for _, d := range dims {
		p := NewPlan(d)
		for _, lanes := range []int{1, 3, 8} {
			if d >= 15 && lanes > 1 {
				continue
			}
			orig := randK(rng, lanes<<d)
			v := slices.Clone(orig)
			p.ForwardK(v, par.New(nil, 2))
			if d > 0 && slices.Equal(v, orig) {
				t.Fatalf("d=%d: forward is the identity", d)
			}
			p.InverseK(v)
			if !slices.Equal(v, orig) {
				t.Fatalf("K d=%d lanes=%d: inverse∘forward ≠ id", d, lanes)
			}
			// And forward∘inverse.
			p.InverseK(v)
			p.ForwardK(v, par.New(nil, 1))
			if !slices.Equal(v, orig) {
				t.Fatalf("K d=%d lanes=%d: forward∘inverse ≠ id", d, lanes)
			}
			oe := randE(rng, lanes<<d)
			ve := slices.Clone(oe)
			p.ForwardE(ve, par.New(nil, 3))
			p.InverseE(ve)
			if !slices.Equal(ve, oe) {
				t.Fatalf("E d=%d lanes=%d: inverse∘forward ≠ id", d, lanes)
			}
		}
	}
}

// Interleaved lanes are independent transforms, and the engine (cache-blocked, gathered
// groups, any worker count) equals the layer-by-layer oracle.
func TestEngineMatchesOracle(t *testing.T) {
	rng := testrand.New(t)
	shapes := []struct{ d, s int }{{1, 1}, {4, 2}, {9, 1}, {10, 64}, {12, 5}, {11, 48}, {14, 1}}
	if !testing.Short() {
		shapes = append(shapes, []struct{ d, s int }{{13, 48}, {14, 3}, {16, 1}}...)
	}
	for _, sh := range shapes {
		p := NewPlan(sh.d)
		orig := randK(rng, sh.s<<sh.d)
		want := slices.Clone(orig)
		p.forwardWordsRef(kWords(want), sh.s, 0)
		for _, w := range []int{1, 2, 3, 4} {
			got := slices.Clone(orig)
			p.ForwardK(got, par.New(nil, w))
			if !slices.Equal(got, want) {
				t.Fatalf("d=%d lanes=%d workers=%d: engine ≠ oracle", sh.d, sh.s, w)
			}
		}
	}
}

// Partial columns: the engine transforms only columns c0..s−1.
func TestEnginePartialColumns(t *testing.T) {
	rng := testrand.New(t)
	shapes := []struct{ d, s, c0 int }{{5, 4, 1}, {10, 64, 27}, {12, 64, 63}, {11, 7, 3}}
	if !testing.Short() {
		shapes = append(shapes, []struct{ d, s, c0 int }{{11, 64, 27}, {14, 64, 63}, {13, 7, 3}}...)
	}
	for _, sh := range shapes {
		p := NewPlan(sh.d)
		n := sh.s - sh.c0
		orig := randK(rng, sh.s<<sh.d)
		narrow := make([]field.K, n<<sh.d)
		for r := range 1 << sh.d {
			copy(narrow[r*n:(r+1)*n], orig[r*sh.s+sh.c0:(r+1)*sh.s])
		}
		p.forwardWordsRef(kWords(narrow), n, 0)
		for _, w := range []int{1, 2, 4} {
			got := slices.Clone(orig)
			e := engine{p: p, buf: kWords(got), s: sh.s, c0: sh.c0, n: n, w: par.New(nil, w)}
			e.run()
			for r := range 1 << sh.d {
				if !slices.Equal(got[r*sh.s:r*sh.s+sh.c0], orig[r*sh.s:r*sh.s+sh.c0]) {
					t.Fatalf("%+v: inactive columns touched at row %d", sh, r)
				}
				if !slices.Equal(got[r*sh.s+sh.c0:(r+1)*sh.s], narrow[r*n:(r+1)*n]) {
					t.Fatalf("%+v workers=%d: row %d differs", sh, w, r)
				}
			}
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add(uint8(3), uint8(1), []byte("seed"))
	f.Add(uint8(10), uint8(3), make([]byte, 64))
	f.Fuzz(func(t *testing.T, logD, lanes uint8, data []byte) {
		d := int(logD % 13)
		l := int(lanes%4) + 1
		p := NewPlan(d)
		v := make([]field.K, l<<d)
		for i := range v {
			var b [8]byte
			copy(b[:], data[min(len(data), i*8%max(1, len(data))):])
			v[i] = field.K(binary.LittleEndian.Uint64(b[:]) ^ uint64(i)*0x9e3779b97f4a7c15)
		}
		orig := slices.Clone(v)
		p.ForwardK(v, par.New(nil, 1+int(lanes)%3))
		p.InverseK(v)
		if !slices.Equal(v, orig) {
			t.Fatalf("d=%d lanes=%d: inverse∘forward ≠ id", d, l)
		}
		ve := make([]field.E, len(orig))
		for i, x := range orig {
			ve[i] = field.E{C0: x, C1: x ^ 1, C2: x.Mul(x)}
		}
		oe := slices.Clone(ve)
		p.ForwardE(ve, par.New(nil, 2))
		p.InverseE(ve)
		if !slices.Equal(ve, oe) {
			t.Fatalf("E d=%d lanes=%d: inverse∘forward ≠ id", d, l)
		}
	})
}
