package ntt

import (
	"github.com/leanpipe/leanpipe/cpu"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// Every dispatch level the CPU supports must equal the portable kernels bit for bit.
func TestKernelLevels(t *testing.T) {
	rng := testrand.New(t)
	levels := Kernels.Levels()
	if len(levels) == 1 {
		t.Logf("only the portable kernel runs here")
	}
	defer cpu.SetLevel(cpu.Active())()
	for _, lv := range levels {
		cpu.SetLevel(lv)
		for n := range 70 {
			for _, lambda := range []uint64{0, 1, 0x1b, 1 << 63, rng.Uint64()} {
				u, v := make([]uint64, n), make([]uint64, n)
				for i := range u {
					u[i], v[i] = rng.Uint64(), rng.Uint64()
				}
				if n > 2 {
					v[0], u[1], v[2] = ^uint64(0), ^uint64(0), 1<<63
				}
				wu, wv := slices.Clone(u), slices.Clone(v)
				fwdTable(wu, wv, lambda)
				gu, gv := slices.Clone(u), slices.Clone(v)
				fwd(gu, gv, lambda)
				if !slices.Equal(gu, wu) || !slices.Equal(gv, wv) {
					t.Fatalf("level %d fwd n=%d λ=%#x differs", lv, n, lambda)
				}
				invTable(wu, wv, lambda)
				inv(gu, gv, lambda)
				if !slices.Equal(gu, wu) || !slices.Equal(gv, wv) {
					t.Fatalf("level %d inv n=%d λ=%#x differs", lv, n, lambda)
				}
				if !slices.Equal(gu, u) || !slices.Equal(gv, v) {
					t.Fatalf("level %d inv∘fwd n=%d ≠ id", lv, n)
				}
			}
		}
	}
}

// The radix-4 kernels (in place and row to row) equal their four table butterflies
// at every level.
func TestRadix4Levels(t *testing.T) {
	rng := testrand.New(t)
	defer cpu.SetLevel(cpu.Active())()
	for _, lv := range Kernels.Levels() {
		cpu.SetLevel(lv)
		for n := range 41 {
			for _, t0 := range []uint64{0, 1, rng.Uint64()} {
				t1, t2 := rng.Uint64(), rng.Uint64()
				if n == 7 {
					t1, t2 = 0, 1<<63
				}
				rows := make([][]uint64, 4)
				want := make([][]uint64, 4)
				for i := range rows {
					rows[i] = make([]uint64, n)
					for k := range rows[i] {
						rows[i][k] = rng.Uint64()
					}
					want[i] = slices.Clone(rows[i])
				}
				fwdTable(want[0], want[2], t0)
				fwdTable(want[1], want[3], t0)
				fwdTable(want[0], want[1], t1)
				fwdTable(want[2], want[3], t2)
				var in, out [4][]uint64
				for i := range rows {
					in[i], out[i] = slices.Clone(rows[i]), make([]uint64, n)
				}
				fwd4io(&out, &in, t0, t1, t2) // distinct output rows
				same := in
				fwd4io(&same, &same, t0, t1, t2) // in place
				fwd4(rows[0], rows[1], rows[2], rows[3], t0, t1, t2)
				// The radix-2 row-to-row kernel, distinct rows and in place.
				x, y := slices.Clone(rows[0]), slices.Clone(rows[3])
				wx, wy := slices.Clone(x), slices.Clone(y)
				fwdTable(wx, wy, t1)
				ou, ov := make([]uint64, n), make([]uint64, n)
				fwdio(ou, ov, x, y, t1)
				fwdio(x, y, x, y, t1)
				if !slices.Equal(ou, wx) || !slices.Equal(ov, wy) || !slices.Equal(x, wx) || !slices.Equal(y, wy) {
					t.Fatalf("level %d fwdio n=%d differs", lv, n)
				}
				for i := range rows {
					if !slices.Equal(rows[i], want[i]) || !slices.Equal(out[i], want[i]) || !slices.Equal(in[i], want[i]) {
						t.Fatalf("level %d fwd4/fwd4io n=%d t0=%#x: row %d differs", lv, n, t0, i)
					}
				}
			}
		}
	}
}

// The block-batched radix-4 kernel equals its table butterflies at every level.
func TestRadix4BlocksLevels(t *testing.T) {
	rng := testrand.New(t)
	defer cpu.SetLevel(cpu.Active())()
	for _, lv := range Kernels.Levels() {
		cpu.SetLevel(lv)
		for _, s := range []int{1, 4, 6, 8, 12, 13, 16, 20, 24, 30, 64} {
			for _, nb := range []int{0, 1, 3, 17} {
				buf := make([]uint64, 4*nb*s)
				for i := range buf {
					buf[i] = rng.Uint64()
				}
				tw := make([]uint64, 3*nb)
				for i := range tw {
					tw[i] = rng.Uint64()
				}
				if nb > 1 {
					tw[3], tw[4] = 0, 1
				}
				want := slices.Clone(buf)
				for k := range nb {
					b := want[4*k*s:]
					r := func(i int) []uint64 { return b[i*s : (i+1)*s] }
					fwdTable(r(0), r(2), tw[3*k])
					fwdTable(r(1), r(3), tw[3*k])
					fwdTable(r(0), r(1), tw[3*k+1])
					fwdTable(r(2), r(3), tw[3*k+2])
				}
				fwd4Blocks(buf, s, tw)
				if !slices.Equal(buf, want) {
					t.Fatalf("level %d fwd4Blocks s=%d nb=%d differs", lv, s, nb)
				}
			}
		}
	}
}

// fwdTable and invTable are the butterflies on the portable table product alone, the
// reference every level (and the short-run path) is held to.
func fwdTable(u, v []uint64, lambda uint64) {
	var m mulTable
	m.init(lambda)
	for i := range u {
		x := u[i] ^ m.mul(v[i])
		u[i], v[i] = x, v[i]^x
	}
}

func invTable(u, v []uint64, lambda uint64) {
	var m mulTable
	m.init(lambda)
	for i := range u {
		v[i] ^= u[i]
		u[i] ^= m.mul(v[i])
	}
}

// The whole encoder gives the same bytes at every dispatch level.
func TestEncodeAcrossLevels(t *testing.T) {
	if len(Kernels.Levels()) == 1 {
		t.Skip("no asm level on this CPU")
	}
	rng := testrand.New(t)
	msg := randK(rng, 64<<10)
	defer cpu.SetLevel(cpu.Active())()
	var outs [][]uint64
	for _, lv := range Kernels.Levels() {
		cpu.SetLevel(lv)
		dst := make([]uint64, 64<<12)
		EncodeK(dst, msg, 16, 6, 2, par.New(nil, 2))
		outs = append(outs, dst)
	}
	for lv := 1; lv < len(outs); lv++ {
		if !slices.Equal(outs[0], outs[lv]) {
			t.Fatalf("level %d encode differs from the generic one", lv)
		}
	}
}

// The level-0 transpose gives the same rows at every dispatch level.
func TestTransposeLevels(t *testing.T) {
	rng := testrand.New(t)
	defer cpu.SetLevel(cpu.Active())()
	for _, sh := range []struct{ n, s, logRows int }{{64, 64, 9}, {37, 64, 8}, {3, 5, 4}, {4, 4, 1}, {7, 7, 0}, {64, 64, 2}, {8, 8, 3}, {12, 16, 5}, {13, 20, 4}, {61, 64, 6}, {23, 24, 3}} {
		rows := 1 << sh.logRows
		msg := make([]uint64, sh.n*rows)
		for i := range msg {
			msg[i] = rng.Uint64()
		}
		want := make([]uint64, sh.s*rows)
		for r := range rows {
			for b := range sh.n {
				want[r*sh.s+sh.s-1-b] = msg[b*rows+r]
			}
		}
		for _, lv := range Kernels.Levels() {
			cpu.SetLevel(lv)
			// With reps copies, every run of `rows` rows is the transpose.
			for _, reps := range []int{1, 2, 4} {
				got := make([]uint64, reps*sh.s*rows)
				for i := range got {
					got[i] = ^uint64(0)
				}
				transposeLanes(got, sh.s, msg, sh.n, rows, reps, par.New(nil, 2))
				for k := range reps {
					if !slices.Equal(got[k*sh.s*rows:(k+1)*sh.s*rows], want) {
						t.Fatalf("%+v level %d: transpose copy %d of %d differs", sh, lv, k, reps)
					}
				}
			}
		}
	}
}
