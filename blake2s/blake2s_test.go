package blake2s

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"github.com/leanpipe/leanpipe/cpu"
	"math/rand/v2"
	"testing"

	xb "golang.org/x/crypto/blake2s"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// RFC 7693 Appendix B: BLAKE2s-256("abc").
func TestRFC7693AppendixB(t *testing.T) {
	want := "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"
	got := Sum256([]byte("abc"))
	if hex.EncodeToString(got[:]) != want {
		t.Fatalf("Sum256(abc) = %x, want %s", got, want)
	}
	for _, l := range Kernels.Levels() {
		restore := cpu.SetLevel(l)
		dst := make([]Digest, 9)
		SumMany(dst, bytes.Repeat([]byte("abc"), 9), 3)
		restore()
		for i := range dst {
			if hex.EncodeToString(dst[i][:]) != want {
				t.Fatalf("level %s: SumMany lane %d = %x, want %s", l.String(), i, dst[i], want)
			}
		}
	}
}

// keyedRef is a general BLAKE2s (digest length outLen, optional key) built only on Compress,
// following RFC 7693 §3.3; it lets the Appendix E self-test run through the exported F.
func keyedRef(outLen int, key, in []byte) []byte {
	h := iv
	h[0] ^= 0x01010000 ^ uint32(len(key))<<8 ^ uint32(outLen)
	var blocks [][]byte
	if len(key) > 0 {
		var kb [BlockSize]byte
		copy(kb[:], key)
		blocks = append(blocks, kb[:])
	}
	for p := in; len(p) > 0; {
		n := min(len(p), BlockSize)
		blocks = append(blocks, p[:n])
		p = p[n:]
	}
	if len(blocks) == 0 {
		blocks = append(blocks, nil)
	}
	var tcount uint64
	for i, b := range blocks {
		var buf [BlockSize]byte
		copy(buf[:], b)
		if i == 0 && len(key) > 0 {
			tcount += BlockSize
		} else {
			tcount += uint64(len(b))
		}
		var m [16]uint32
		for j := range m {
			m[j] = binary.LittleEndian.Uint32(buf[4*j:])
		}
		var f0 uint32
		if i == len(blocks)-1 {
			f0 = 0xFFFFFFFF
		}
		Compress(&h, &m, tcount, f0, 0)
	}
	out := make([]byte, 32)
	for i, w := range h {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out[:outLen]
}

// selftestSeq is the Fibonacci byte generator of RFC 7693 Appendix E.
func selftestSeq(n int, seed uint32) []byte {
	out := make([]byte, n)
	a, b := 0xDEAD4BAD*seed, uint32(1)
	for i := range out {
		t := a + b
		a, b = b, t
		out[i] = byte(t >> 24)
	}
	return out
}

// RFC 7693 Appendix E: the BLAKE2s grand hash over digest lengths, input lengths and keys.
// Unkeyed 32-byte digests also go through Sum256 and SumMany, which must agree with Compress.
func TestRFC7693SelfTest(t *testing.T) {
	want := []byte{
		0x6A, 0x41, 0x1F, 0x08, 0xCE, 0x25, 0xAD, 0xCD,
		0xFB, 0x02, 0xAB, 0xA6, 0x41, 0x45, 0x1C, 0xEC,
		0x53, 0xC5, 0x98, 0xB2, 0x4F, 0x4F, 0xC7, 0x87,
		0xFB, 0xDC, 0x88, 0x79, 0x7F, 0x4C, 0x1D, 0xFE,
	}
	for _, l := range Kernels.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			defer cpu.SetLevel(l)()
			if got := selfTestGrandHash(t); !bytes.Equal(got[:], want) {
				t.Fatalf("grand hash = %x, want %x", got, want)
			}
		})
	}
}

func selfTestGrandHash(t *testing.T) Digest {
	var grand []byte
	for _, outLen := range []int{16, 20, 28, 32} {
		for _, inLen := range []int{0, 3, 64, 65, 255, 1024} {
			in := selftestSeq(inLen, uint32(inLen))
			md := keyedRef(outLen, nil, in)
			if outLen == 32 {
				s := Sum256(in)
				if !bytes.Equal(s[:], md) {
					t.Fatalf("Sum256 (len %d) = %x, Compress-built = %x", inLen, s, md)
				}
				dst := make([]Digest, 9)
				SumMany(dst, bytes.Repeat(in, 9), inLen)
				for i := range dst {
					if !bytes.Equal(dst[i][:], md) {
						t.Fatalf("SumMany (len %d) lane %d = %x, want %x", inLen, i, dst[i], md)
					}
				}
			}
			grand = append(grand, md...)
			key := selftestSeq(outLen, uint32(outLen))
			grand = append(grand, keyedRef(outLen, key, in)...)
		}
	}
	return Sum256(grand)
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// crossLengths are every length 0..600 plus the sizes the prover uses.
func crossLengths() []int {
	var ls []int
	for n := 0; n <= 600; n++ {
		ls = append(ls, n)
	}
	return append(ls, 1024, 4096+17)
}

func TestSum256MatchesXCrypto(t *testing.T) {
	r := testrand.New(t)
	for _, l := range Kernels.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			defer cpu.SetLevel(l)()
			for _, n := range crossLengths() {
				for rep := 0; rep < 2; rep++ {
					data := randBytes(r, n)
					if got, want := Sum256(data), xb.Sum256(data); got != want {
						t.Fatalf("len %d: Sum256 = %x, x/crypto = %x", n, got, want)
					}
				}
			}
		})
	}
}

func TestNodeMatchesXCrypto(t *testing.T) {
	r := testrand.New(t)
	for _, l := range Kernels.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			defer cpu.SetLevel(l)()
			for rep := 0; rep < 200; rep++ {
				var left, right Digest
				copy(left[:], randBytes(r, 32))
				copy(right[:], randBytes(r, 32))
				if got, want := Node(&left, &right), xb.Sum256(append(left[:], right[:]...)); got != want {
					t.Fatalf("Node = %x, x/crypto = %x", got, want)
				}
			}
		})
	}
}

// Compress at every level must equal the portable F on arbitrary chaining values, blocks,
// 64-bit counters and flags.
func TestCompressAllLevels(t *testing.T) {
	r := testrand.New(t)
	for _, l := range Kernels.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			defer cpu.SetLevel(l)()
			for rep := 0; rep < 500; rep++ {
				var h [8]uint32
				var m [16]uint32
				for i := range h {
					h[i] = r.Uint32()
				}
				for i := range m {
					m[i] = r.Uint32()
				}
				tc := r.Uint64()
				f0, f1 := r.Uint32(), r.Uint32()
				want := h
				compressGeneric(&want, &m, tc, f0, f1)
				got := h
				Compress(&got, &m, tc, f0, f1)
				if got != want {
					t.Fatalf("Compress(h=%x, m=%x, t=%#x, f=%#x,%#x) = %x, want %x", h, m, tc, f0, f1, got, want)
				}
			}
		})
	}
}

// manyLengths are the message lengths SumMany is checked at for every count.
func manyLengths() []int {
	ls := []int{0, 1, 3, 31, 32, 55, 63, 64, 65, 100, 127, 128, 129, 191, 192, 193, 255, 256, 320, 511, 512, 513, 1024}
	if testing.Short() {
		return []int{0, 1, 63, 64, 65, 192, 512}
	}
	return ls
}

func TestSumManyAllLevels(t *testing.T) {
	r := testrand.New(t)
	for _, l := range Kernels.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			defer cpu.SetLevel(l)()
			for _, msgLen := range manyLengths() {
				for count := 0; count <= 40; count++ {
					src := randBytes(r, count*msgLen)
					dst := make([]Digest, count+1) // one sentinel past the end
					sentinel := Digest{0xAA, 0x55}
					dst[count] = sentinel
					SumMany(dst[:count], src, msgLen)
					for i := 0; i < count; i++ {
						if want := xb.Sum256(src[i*msgLen : (i+1)*msgLen]); dst[i] != want {
							t.Fatalf("len %d count %d: lane %d = %x, want %x", msgLen, count, i, dst[i], want)
						}
					}
					if dst[count] != sentinel {
						t.Fatalf("len %d count %d: wrote past dst", msgLen, count)
					}
				}
			}
		})
	}
}

func TestSumManyEveryLength(t *testing.T) {
	r := testrand.New(t)
	for _, l := range Kernels.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			defer cpu.SetLevel(l)()
			dst := make([]Digest, 9)
			for _, msgLen := range crossLengths() {
				src := randBytes(r, 9*msgLen)
				SumMany(dst, src, msgLen)
				for i := range dst {
					if want := Sum256(src[i*msgLen : (i+1)*msgLen]); dst[i] != want {
						t.Fatalf("len %d: lane %d = %x, want %x", msgLen, i, dst[i], want)
					}
				}
			}
		})
	}
}

// SumManyZeroPrefix against x/crypto on the explicitly zero-prefixed messages, at every level:
// empty and partial messages, counts around the 8- and 16-lane groups, a sentinel past dst.
func TestSumManyZeroPrefixAllLevels(t *testing.T) {
	r := testrand.New(t)
	for _, l := range Kernels.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			defer cpu.SetLevel(l)()
			for _, zb := range []int{0, 1, 2, 7} {
				for _, msgLen := range []int{0, 1, 8, 63, 64, 65, 96, 128, 192, 200, 512} {
					for _, count := range []int{0, 1, 7, 8, 9, 15, 16, 17, 19, 23, 24, 25, 31, 32, 33, 40} {
						src := randBytes(r, count*msgLen)
						dst := make([]Digest, count+1)
						sentinel := Digest{0xAA, 0x55}
						dst[count] = sentinel
						SumManyZeroPrefix(dst[:count], src, msgLen, zb)
						for i := 0; i < count; i++ {
							msg := append(make([]byte, BlockSize*zb), src[i*msgLen:(i+1)*msgLen]...)
							if want := xb.Sum256(msg); dst[i] != want {
								t.Fatalf("zero blocks %d len %d count %d: lane %d = %x, want %x", zb, msgLen, count, i, dst[i], want)
							}
						}
						if dst[count] != sentinel {
							t.Fatalf("zero blocks %d len %d count %d: wrote past dst", zb, msgLen, count)
						}
					}
				}
			}
		})
	}
}

func TestNodeManyAllLevels(t *testing.T) {
	r := testrand.New(t)
	for _, l := range Kernels.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			defer cpu.SetLevel(l)()
			for count := 0; count <= 40; count++ {
				children := make([]Digest, 2*count)
				for i := range children {
					copy(children[i][:], randBytes(r, 32))
				}
				dst := make([]Digest, count)
				NodeMany(dst, children)
				for i := range dst {
					if want := xb.Sum256(append(children[2*i][:], children[2*i+1][:]...)); dst[i] != want {
						t.Fatalf("count %d: node %d = %x, want %x", count, i, dst[i], want)
					}
				}
			}
		})
	}
}

// NodeMany must allow dst to alias the first half of children (building a Merkle layer in place).
func TestNodeManyInPlace(t *testing.T) {
	r := testrand.New(t)
	for _, l := range Kernels.Levels() {
		restore := cpu.SetLevel(l)
		defer restore()
		for _, count := range []int{1, 7, 8, 9, 16, 17, 24, 32, 33, 40} {
			buf := make([]Digest, 2*count)
			for i := range buf {
				copy(buf[i][:], randBytes(r, 32))
			}
			want := make([]Digest, count)
			for i := range want {
				want[i] = Node(&buf[2*i], &buf[2*i+1])
			}
			NodeMany(buf[:count], buf)
			for i := range want {
				if buf[i] != want[i] {
					t.Fatalf("level %s count %d: in-place node %d = %x, want %x", l.String(), count, i, buf[i], want[i])
				}
			}
		}
	}
}

func TestPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"SumMany short src", func() { SumMany(make([]Digest, 2), make([]byte, 127), 64) }},
		{"SumMany negative len", func() { SumMany(nil, nil, -1) }},
		{"NodeMany odd children", func() { NodeMany(make([]Digest, 2), make([]Digest, 3)) }},
		{"SumManyZeroPrefix short src", func() { SumManyZeroPrefix(make([]Digest, 2), make([]byte, 127), 64, 1) }},
		{"SumManyZeroPrefix negative blocks", func() { SumManyZeroPrefix(nil, nil, 0, -1) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.f()
		}()
	}
}

func TestZeroAllocs(t *testing.T) {
	r := testrand.New(t)
	data := randBytes(r, 16*512)
	dst := make([]Digest, 16)
	children := make([]Digest, 32)
	var l, rr Digest
	var h [8]uint32
	var m [16]uint32
	for _, lv := range Kernels.Levels() {
		restore := cpu.SetLevel(lv)
		for name, f := range map[string]func(){
			"Sum256":                func() { dst[0] = Sum256(data[:600]) },
			"Node":                  func() { dst[0] = Node(&l, &rr) },
			"Compress":              func() { Compress(&h, &m, 64, 0, 0) },
			"SumMany/192":           func() { SumMany(dst[:13], data[:13*192], 192) },
			"SumMany/512":           func() { SumMany(dst, data, 512) },
			"SumMany/100":           func() { SumMany(dst[:11], data[:1100], 100) },
			"NodeMany":              func() { NodeMany(dst, children) },
			"SumManyZeroPrefix/64":  func() { SumManyZeroPrefix(dst, data[:16*64], 64, 7) },
			"SumManyZeroPrefix/100": func() { SumManyZeroPrefix(dst[:11], data[:1100], 100, 3) },
		} {
			if a := testing.AllocsPerRun(20, f); a != 0 {
				t.Errorf("level %s: %s allocates %v times per call", lv.String(), name, a)
			}
		}
		restore()
	}
}

func ExampleSumMany() {
	src := []byte("abcabc")
	dst := make([]Digest, 2)
	SumMany(dst, src, 3)
	fmt.Printf("%x\n", dst[1][:8])
	// Output: 508c5e8c327c14e2
}
