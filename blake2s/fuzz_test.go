package blake2s

import (
	"github.com/leanpipe/leanpipe/cpu"
	"testing"

	xb "golang.org/x/crypto/blake2s"
)

// FuzzSumMany checks Sum256 against x/crypto and SumMany at every level against Sum256 on
// arbitrary data split into equal-length messages.
func FuzzSumMany(f *testing.F) {
	f.Add([]byte("abc"), uint8(1))
	f.Add(make([]byte, 8*64), uint8(8))
	f.Add(make([]byte, 9*192), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, count uint8) {
		if want, got := xb.Sum256(data), Sum256(data); got != want {
			t.Fatalf("Sum256 = %x, x/crypto = %x", got, want)
		}
		n := int(count%24) + 1
		msgLen := len(data) / n
		src := data[:n*msgLen]
		want := make([]Digest, n)
		for i := range want {
			want[i] = Sum256(src[i*msgLen : (i+1)*msgLen])
		}
		for _, l := range Kernels.Levels() {
			restore := cpu.SetLevel(l)
			got := make([]Digest, n)
			SumMany(got, src, msgLen)
			restore()
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("level %s: SumMany(%d × %d) lane %d = %x, want %x", l.String(), n, msgLen, i, got[i], want[i])
				}
			}
		}
	})
}
