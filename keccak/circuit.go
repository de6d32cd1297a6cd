package keccak

import (
	"fmt"
	"math/bits"
	"sync"

	"github.com/leanpipe/leanpipe/circuit"
)

// StateBits is the number of bits of a state, one column each.
const StateBits = 8 * StateSize

// Layout places P permutations in one block of 2^LogSize columns. Every region
// starts on a multiple of 64 columns, so that a lane of 64 bits is one K word of
// the packed witness (docs/keccak-batch.md, "Block layout"):
//
//	permutation p's input state    columns 3200p + k          (k = 64·(x+5y) + z)
//	permutation p's output state   columns 3200p + 1600 + k
//	the constant column            3200P
//	χ products of p, round r       Gate(p, r) + k
//
// The public window is columns [0, 2^WindowLog()) with the 3200P state columns pinned.
type Layout struct {
	Perms   int // permutations per block
	LogSize int // log2 of the block
}

// The two layouts measured: one permutation per 2^16 block, and three per 2^17.
var (
	Sparse = Layout{Perms: 1, LogSize: 16}
	Dense  = Layout{Perms: 3, LogSize: 17}
)

// In is the first column of permutation p's input state.
func (l Layout) In(p int) int { return 2 * StateBits * p }

// Out is the first column of permutation p's output state.
func (l Layout) Out(p int) int { return 2*StateBits*p + StateBits }

// ConstCol is the constant column.
func (l Layout) ConstCol() int { return 2 * StateBits * l.Perms }

// Gate is the first column of the χ products of permutation p in round r.
func (l Layout) Gate(p, r int) int { return l.ConstCol() + 64 + StateBits*(Rounds*p+r) }

// Useful is one past the last column used.
func (l Layout) Useful() int { return l.Gate(l.Perms, 0) }

// WindowLog is log2 of the public window (the state columns, from column 0).
func (l Layout) WindowLog() int { return bits.Len(uint(l.ConstCol() - 1)) }

// ANDs is the number of χ products per permutation.
const ANDs = Rounds * StateBits

func (l Layout) check() {
	if l.Perms < 1 || l.LogSize < 13 || l.LogSize > 24 || l.Useful() > 1<<l.LogSize || l.WindowLog() > 16 {
		panic(fmt.Sprintf("keccak: layout %+v does not fit", l))
	}
}

// Circuit is the block circuit of a layout: Perms permutations of Keccak-f[1600].
type Circuit struct {
	*circuit.Circuit
	Layout Layout
}

var circuits sync.Map // Layout → func() *Circuit

// NewCircuit returns the circuit of layout l (built once per layout and shared).
func NewCircuit(l Layout) *Circuit {
	l.check()
	f, _ := circuits.LoadOrStore(l, sync.OnceValue(func() *Circuit { return build(l) }))
	return f.(func() *Circuit)()
}

// build records the circuit. Wires are GF(2)-linear forms over columns: θ, ρ, π and
// ι are sums, rotations and constants of them; each χ output bit is
// b[x,y] ⊕ t[x,y] with t[x,y] = (¬b[x+1,y])·b[x+2,y] one product row, its own column.
func build(l Layout) *Circuit {
	b := circuit.NewBuilder(fmt.Sprintf("keccak-f1600x%d", l.Perms), l.LogSize, l.ConstCol())
	one := b.One()
	for p := range l.Perms {
		b.Input(fmt.Sprintf("in%d", p), l.In(p), StateBits)
		var a [25][64]circuit.Wire
		for i := range a {
			for z := range 64 {
				a[i][z] = b.Col(l.In(p) + 64*i + z)
			}
		}
		for r := range Rounds {
			// θ: c[x] = Σ_y a[x,y]; a[x,y] += c[x−1] + rot(c[x+1], 1).
			var c [5][64]circuit.Wire
			for x := range 5 {
				for z := range 64 {
					w := a[x][z]
					for y := 1; y < 5; y++ {
						w = b.Xor(w, a[x+5*y][z])
					}
					c[x][z] = w
				}
			}
			var d [5][64]circuit.Wire
			for x := range 5 {
				for z := range 64 {
					d[x][z] = b.Xor(c[(x+4)%5][z], c[(x+1)%5][(z+63)%64])
				}
			}
			// ρ and π: lane i of B is lane PiSource(i) of θ's output rotated left
			// by its offset (bit z of rot(v, n) is bit z−n of v).
			var bb [25][64]circuit.Wire
			for i := range bb {
				src := PiSource(i)
				for z := range 64 {
					zs := (z - Rho[src] + 64) % 64
					bb[i][z] = b.Xor(a[src][zs], d[src%5][zs])
				}
			}
			// χ, then ι.
			gate := l.Gate(p, r)
			for i := range a {
				x, y := i%5, i/5
				b1, b2 := bb[5*y+(x+1)%5], bb[5*y+(x+2)%5]
				for z := range 64 {
					t := b.Product(gate+64*i+z, b.Xor(b1[z], one), b2[z])
					a[i][z] = b.Xor(bb[i][z], t)
				}
			}
			for z := range 64 {
				if RC[r]>>z&1 == 1 {
					a[0][z] = b.Xor(a[0][z], one)
				}
			}
		}
		for i := range a {
			for z := range 64 {
				b.Linear(l.Out(p)+64*i+z, a[i][z])
			}
		}
		b.Name(fmt.Sprintf("out%d", p), l.Out(p), StateBits)
		b.Name(fmt.Sprintf("chi%d", p), l.Gate(p, 0), ANDs)
	}
	return &Circuit{Circuit: b.Compile(), Layout: l}
}
