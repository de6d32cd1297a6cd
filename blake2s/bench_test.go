package blake2s

import (
	"fmt"
	"github.com/leanpipe/leanpipe/cpu"
	"testing"

	xb "golang.org/x/crypto/blake2s"
)

// Run at one core: go test -run=^$ -bench=. -cpu=1 -benchtime=200ms ./blake2s/

var sink Digest

// benchBatch is the number of messages per SumMany/NodeMany call.
const benchBatch = 1024

// compressions is the number of compression-function calls for one message of n bytes.
func compressions(n int) int { return max(1, (n+BlockSize-1)/BlockSize) }

// loop runs f under b.Loop and reports compressions per wall-clock second and per CPU
// second of this process (the latter is steadier on a shared machine; run with -cpu=1).
func loop(b *testing.B, perOp int, f func()) {
	c0 := cpuTime()
	for b.Loop() {
		f()
	}
	c1 := cpuTime()
	n := float64(b.N) * float64(perOp)
	b.ReportMetric(n/b.Elapsed().Seconds(), "compressions/s")
	if c1 > c0 {
		b.ReportMetric(n/(c1-c0).Seconds(), "compressions/cpu-s")
	}
}

func BenchmarkNodeMany(b *testing.B) {
	children := make([]Digest, 2*benchBatch)
	for i := range children {
		children[i][0] = byte(i)
		children[i][1] = byte(i >> 8)
	}
	dst := make([]Digest, benchBatch)
	for _, l := range Kernels.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			b.SetBytes(benchBatch * 2 * Size)
			loop(b, benchBatch, func() { NodeMany(dst, children) })
		})
	}
}

func BenchmarkSumMany(b *testing.B) {
	for _, msgLen := range []int{64, 192, 512} {
		src := make([]byte, benchBatch*msgLen)
		for i := range src {
			src[i] = byte(i * 7)
		}
		dst := make([]Digest, benchBatch)
		for _, l := range Kernels.Levels() {
			b.Run(fmt.Sprintf("%d/%s", msgLen, l.String()), func(b *testing.B) {
				defer cpu.SetLevel(l)()
				b.SetBytes(int64(len(src)))
				loop(b, benchBatch*compressions(msgLen), func() { SumMany(dst, src, msgLen) })
			})
		}
	}
}

func BenchmarkSum256(b *testing.B) {
	for _, n := range []int{64, 192, 512} {
		data := make([]byte, n)
		for _, l := range Kernels.Levels() {
			b.Run(fmt.Sprintf("%d/%s", n, l.String()), func(b *testing.B) {
				defer cpu.SetLevel(l)()
				b.SetBytes(int64(n))
				loop(b, compressions(n), func() { sink = Sum256(data) })
			})
		}
	}
}

func BenchmarkNode(b *testing.B) {
	var left, right Digest
	for _, l := range Kernels.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			b.SetBytes(2 * Size)
			loop(b, 1, func() { sink = Node(&left, &right) })
		})
	}
}

// BenchmarkXCrypto is the baseline: golang.org/x/crypto/blake2s, one message at a time.
func BenchmarkXCrypto(b *testing.B) {
	for _, n := range []int{64, 192, 512} {
		data := make([]byte, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			loop(b, compressions(n), func() { sink = xb.Sum256(data) })
		})
	}
}

// BenchmarkSumManyStream hashes 64 MiB of 512-byte messages (2^17 leaves of 64 words), more
// than the last-level cache, so the rows stream from memory as in a commitment.
func BenchmarkSumManyStream(b *testing.B) {
	const msgLen, count = 512, 1 << 17
	src := make([]byte, msgLen*count)
	for i := range src {
		src[i] = byte(i * 7)
	}
	dst := make([]Digest, count)
	for _, l := range Kernels.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			b.SetBytes(int64(len(src)))
			loop(b, count*compressions(msgLen), func() { SumMany(dst, src, msgLen) })
		})
	}
}
