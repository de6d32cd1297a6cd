package flows

import "github.com/leanpipe/leanpipe/stages/open"

// PaddingLanes is the number of level-0 lane blocks that hold only padding slots
// (slots N … 2^NLog−1, each a copy of one padding instance), when every lane block
// holds whole slots and all 64 are committed; 0 otherwise. Those lane blocks are
// identical: the last PaddingLanes words of the stack's lane order.
func (s Shape) PaddingLanes() int {
	if s.Lanes != 1<<6 || s.StackLog < s.LogInstance {
		return 0
	}
	perLane := 1 << (s.StackLog - s.LogInstance)
	live := (s.N + perLane - 1) / perLane
	return s.Lanes - live
}

// Wire is the opening's wire form for a batch of this shape with RepeatPadding
// on: each level-0 row sends its PaddingLanes equal leading words once.
func (s Shape) Wire() open.Wire {
	return open.Wire{RepeatedLanes: max(0, s.PaddingLanes()-1)}
}

// wire is the opening's wire form of the flow's proofs of shape sh.
func (f *Flock) wire(sh Shape) open.Wire {
	if !f.spec.RepeatPadding {
		return open.Wire{}
	}
	return sh.Wire()
}
