//go:build !purego

package lincheck

import (
	"testing"

	"github.com/leanpipe/leanpipe/field"
)

func BenchmarkBitFoldKernel(b *testing.B) {
	if !useGFNI() {
		b.Skip("no GFNI")
	}
	const words = 8
	q := make([]field.K, 8*bitFoldTile*words)
	for i := range q {
		q[i] = field.K(uint64(i) * 0x9E3779B97F4A7C15)
	}
	mats := make([]uint64, 24*bitFoldTile)
	for i := range mats {
		mats[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	var t foldTables
	tb, acc := t.gfniScratch()
	for b.Loop() {
		bitFoldGFNI(&acc[0], &q[0], 8*words, 8, bitFoldTile, &mats[0], &tb[0])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(bitFoldTile*8), "ns/group-word")
}
