package reduce

import (
	"fmt"
	mbits "math/bits"

	"github.com/leanpipe/leanpipe/field"
)

// PartialFold folds the packed witness over its slots:
//
//	dst[64·j + i] = Σ_s eqOut[s]·bit_i(q[s·words + j])   for j < words, i < 64,
//
// i.e. dst[col] = ẑ(col, chi_out) for eqOut = eq(chi_out, ·). Slots [live, len(eqOut))
// must hold identical blocks: they are read once, weighted by their summed eq
// weight (live ≤ 0 or ≥ len(eqOut) folds every slot densely). Groups of 8 slots
// go through a 256-entry subset-sum table of their weights, indexed by the
// 8x8-transposed bytes of the 8 words. Workers split the words; the output does
// not depend on their number.
func PartialFold(dst []field.E, q []field.K, words int, eqOut []field.E, live int, workers int) {
	slots := len(eqOut)
	if len(dst) != words*KBits || len(q) != words*slots {
		panic(fmt.Sprintf("reduce: PartialFold: %d outputs, %d words for %d×%d", len(dst), len(q), slots, words))
	}
	if live <= 0 || live > slots {
		live = slots
	}
	dense := slots
	if slots >= 8 {
		dense = min(slots, (live+7)&^7)
	}
	tail := field.Zero
	for _, w := range eqOut[dense:] {
		tail = tail.Add(w)
	}
	parallelRange(words, workers, 1, func(jlo, jhi int) {
		out := dst[jlo*KBits : jhi*KBits]
		clear(out)
		if dense%8 == 0 {
			var table [256]field.E
			for g := 0; g < dense; g += 8 {
				subsetSums8(&table, eqOut[g:g+8])
				foldGroup8(out, q, words, g, jlo, jhi, &table)
			}
		} else {
			for s := 0; s < dense; s++ {
				foldSlot(out, q[s*words+jlo:s*words+jhi], eqOut[s])
			}
		}
		if dense < slots {
			s := slots - 1
			foldSlot(out, q[s*words+jlo:s*words+jhi], tail)
		}
	})
}

// foldSlot adds w·bit_i(row[j]) into out[64·j + i].
func foldSlot(out []field.E, row []field.K, w field.E) {
	for j, word := range row {
		acc := out[j*KBits : (j+1)*KBits]
		for bits := uint64(word); bits != 0; bits &= bits - 1 {
			i := mbits.TrailingZeros64(bits)
			acc[i] = acc[i].Add(w)
		}
	}
}

// subsetSums8 writes t[m] = Σ_{e : bit e of m} w[e].
func subsetSums8(t *[256]field.E, w []field.E) {
	t[0] = field.Zero
	for e := 0; e < 8; e++ {
		h := 1 << e
		for m := 0; m < h; m++ {
			t[h+m] = t[m].Add(w[e])
		}
	}
}

// foldGroup8 adds, for slots g..g+7 and words j in [jlo, jhi), the table entry of
// the 8 slot bits of column 64·j + i into out[64·(j-jlo) + i].
func foldGroup8(out []field.E, q []field.K, words, g, jlo, jhi int, t *[256]field.E) {
	base := g * words
	for j := jlo; j < jhi; j++ {
		var w [8]uint64
		nz := uint64(0)
		for e := range w {
			w[e] = uint64(q[base+e*words+j])
			nz |= w[e]
		}
		if nz == 0 {
			continue
		}
		acc := out[(j-jlo)*KBits : (j-jlo+1)*KBits]
		for b := 0; b < 8; b++ {
			sh := uint(8 * b)
			x := (w[0]>>sh)&0xff | (w[1]>>sh&0xff)<<8 | (w[2]>>sh&0xff)<<16 | (w[3]>>sh&0xff)<<24 |
				(w[4]>>sh&0xff)<<32 | (w[5]>>sh&0xff)<<40 | (w[6]>>sh&0xff)<<48 | (w[7]>>sh&0xff)<<56
			if x == 0 {
				continue
			}
			x = transpose8x8(x)
			a := acc[8*b : 8*b+8]
			for p := range a {
				if m := byte(x >> (8 * p)); m != 0 {
					a[p] = a[p].Add(t[m])
				}
			}
		}
	}
}

// transpose8x8 transposes an 8x8 bit matrix held as bytes (row e = byte e,
// column p = bit p): bit 8e+p moves to bit 8p+e.
func transpose8x8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00AA00AA00AA00AA
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000CCCC0000CCCC
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000F0F0F0F0
	x ^= t ^ t<<28
	return x
}
