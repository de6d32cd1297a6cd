package open

import (
	"cmp"
	"slices"

	"github.com/leanpipe/leanpipe/field"
)

// Placement says where a block of 2^Variables words sits in a stacked cube: at word
// Offset, a multiple of its own size. Virtual marks an entry stacked elsewhere.
type Placement struct {
	Variables int
	Offset    int
}

// Virtual is the placement of an entry that takes no room in this stack.
var Virtual = Placement{Variables: -1}

// IsVirtual reports whether p is Virtual.
func (p Placement) IsVirtual() bool { return p.Variables < 0 }

// Selector is the index of the 2^Variables-word slice of the cube that p occupies:
// the high coordinates of every word of the block, as an integer.
func (p Placement) Selector() int { return p.Offset >> p.Variables }

// StackOffsets places blocks of 2^sizes[i] words one after another, largest first
// (ties in input order), so each lands on a multiple of its own size and both sides
// derive the layout from the sizes alone. A negative size is an entry committed
// elsewhere (Virtual). It returns the placements and log2 of the padded total
// (0 for an empty stack).
func StackOffsets(sizes []int) ([]Placement, int) {
	order := make([]int, 0, len(sizes))
	for i, s := range sizes {
		if s >= 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[b], sizes[a]) })
	out := make([]Placement, len(sizes))
	for i := range out {
		out[i] = Virtual
	}
	total := 0
	for _, i := range order {
		out[i] = Placement{Variables: sizes[i], Offset: total}
		total += 1 << sizes[i]
	}
	log := 0
	for 1<<log < total {
		log++
	}
	return out, log
}

// SelectorEq returns eq(bits of selector, point) = Π_k (point_k if bit k of selector
// is set, else 1 + point_k), low coordinate first.
func SelectorEq(selector int, point []field.E) field.E {
	out := field.One
	for k, x := range point {
		if k < 63 && selector>>k&1 == 1 {
			out = out.Mul(x)
		} else {
			out = out.Mul(field.One.Add(x))
		}
	}
	return out
}
