package recursion

import (
	"fmt"
	"github.com/leanpipe/leanpipe/aggregate"
	"slices"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
)

// The block claims of a no-reveal merge (docs/recursion.md §6.9). Each segment's
// lincheck leaves a claim on its block circuit's matrices A0 and B0 at the lincheck's
// point. A merge does not evaluate them segment by segment: its batch transcript
// receives the claimed values and reduces them, with its merged children's batched
// claims on the same blocks, to one claim per block circuit (a *kind*), which its
// verifier evaluates natively. A parent replays that batch on its tape, so it carries
// of a merged child only the batch's outputs, one point and two values per kind,
// whatever the child's depth, and the children's children's block claims end there
// instead of being carried up the tree.

// nrBlock is a kind of a no-reveal merge's batch: a block circuit, a sparse matrix,
// or a role kind (roles.go), whose matrices depend on the batch's address point.
type nrBlock interface {
	LogSize() int
}

// fixedBlock is a kind with fixed matrices.
type fixedBlock interface {
	nrBlock
	// Matrices are the block's matrices for a verifier; batchMatrices what the
	// batching prover walks (a block's compiled circuit).
	Matrices() lincheck.Matrices
	batchMatrices() Matrices
}

// xmssName names the xmss-aggregate circuit's kind.
const xmssName = "xmss-aggregate"

// xmssKind is the xmss-aggregate circuit as a kind of the batch: the leaves' deferred
// matrix claims and the merged children's batched ones join the batch like any
// block's, at its one point (docs/recursion.md §6.13), so that a merged child's record
// carries no claim of its own on it.
type xmssKind struct{}

func (xmssKind) LogSize() int                { return aggregate.LogSize }
func (xmssKind) Matrices() lincheck.Matrices { return aggregate.VerifierMatrices() }
func (xmssKind) batchMatrices() Matrices     { return aggregate.New().Circuit }

// nrKind is a block circuit with its key: its name and size, which fix its matrices.
type nrKind struct {
	key   string
	block nrBlock
}

// blockKey names a block circuit.
func blockKey(b nrBlock) string {
	var name string
	switch b := b.(type) {
	case *TranscriptBlock:
		name = transcriptName
	case *ArithBlock:
		name = b.name()
	case *SquareBlock:
		name = b.name()
	case *QueryBlock:
		name = b.name
	case *GrindBlock:
		name = grindName
		if b.nr {
			name = grindNameNR
		}
	case *sparseKind:
		name = b.name
	case *roleKind:
		// A role's size follows the shapes below; its key does not.
		return roleKey(b.role)
	case xmssKind:
		name = xmssName
	default:
		panic(fmt.Sprintf("recursion: a block of type %T", b))
	}
	return fmt.Sprintf("%s/%d", name, b.LogSize())
}

// segmentBlocks are the layout's segments' block circuits, in segment order.
func (l *nrLayout) segmentBlocks() []nrBlock {
	out := []nrBlock{l.tb, l.arith.F, l.arith.S, nrHints()}
	for _, g := range l.groups {
		for range g.pieces {
			out = append(out, g.qb)
		}
	}
	return append(out, l.gb)
}

// batchKinds are the kinds a merge's batch reduces, sorted by key: its own segments'
// blocks and its merged children's kinds (subs, nil for a leaf).
func batchKinds(l *nrLayout, subs []*nrSub) ([]nrKind, error) {
	byKey := map[string]nrBlock{blockKey(xmssKind{}): xmssKind{}}
	for _, b := range l.segmentBlocks() {
		byKey[blockKey(b)] = b
	}
	// Its tree table (§6.11); its children's tables are lifted into it, not merged.
	tk, err := targetKind(l, subs)
	if err != nil {
		return nil, err
	}
	if tk != nil {
		byKey[blockKey(tk)] = tk
	}
	// Its role tables (roles.go); its children's are lifted into them, not merged.
	roles, err := roleKinds(subs)
	if err != nil {
		return nil, err
	}
	for _, r := range roles {
		byKey[blockKey(r)] = r
	}
	for _, s := range subs {
		if s != nil {
			for _, k := range s.kinds {
				if !isTargets(k) && !isRole(k) {
					byKey[k.key] = k.block
				}
			}
		}
	}
	out := make([]nrKind, 0, len(byKey))
	for k, b := range byKey {
		out = append(out, nrKind{k, b})
	}
	slices.SortFunc(out, func(a, b nrKind) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	return out, nil
}

// zeroBs marks the kinds whose B0 is zero: the sparse ones (tree tables, role
// tables), for which a batch sends and a record carries no B0 value.
func zeroBs(kinds []nrKind) []bool {
	out := make([]bool, len(kinds))
	for i, k := range kinds {
		_, sparse := k.block.(*sparseKind)
		out[i] = sparse || isRole(k)
	}
	return out
}

// countB is the number of kinds whose B0 is not zero.
func countB(kinds []nrKind) int {
	n := 0
	for _, z := range zeroBs(kinds) {
		if !z {
			n++
		}
	}
	return n
}

// kindsLog is the largest block of kinds: the batch's point's length.
func kindsLog(kinds []nrKind) int {
	L := 0
	for _, k := range kinds {
		L = max(L, k.block.LogSize())
	}
	return L
}

// kindClaims sorts a merge's block claims into its kinds: per kind, its own
// segments' (ownAt: their segment indices, in order) and then its merged children's
// (subs[c].kinds beside outs[c]) and its leaves' deferred matrix claims (leaves[c]
// for a leaf), in child order; and the claims on its role kinds (roles), which its
// address batch reduces first (roles.go). A child's claims that do not fit its kinds,
// or a kind the merge does not batch, are an error.
func kindClaims(kinds []nrKind, blocks []nrBlock, subs []*nrSub, outs []*KindsClaim, leaves []*MatrixClaim) (ownAt [][]int, children [][]MatrixClaim, roles []roleClaim, err error) {
	at := map[string]int{}
	for i, k := range kinds {
		at[k.key] = i
	}
	ownAt = make([][]int, len(kinds))
	for j, b := range blocks {
		i := at[blockKey(b)]
		ownAt[i] = append(ownAt[i], j)
	}
	children = make([][]MatrixClaim, len(kinds))
	tk, w := targetsOf(kinds), digitBits(len(subs))
	rw, ab := roleBits(len(subs)), roleAddrBits(kinds)
	xk := at[blockKey(xmssKind{})]
	for c, s := range subs {
		if s == nil {
			if c < len(leaves) && leaves[c] != nil {
				children[xk] = append(children[xk], *leaves[c])
			}
			continue
		}
		o := outs[c]
		if o == nil || len(o.VA) != len(s.kinds) || len(o.RRow) != kindsLog(s.kinds) || len(o.RCol) != kindsLog(s.kinds) || len(o.RAddr) != roleAddrBits(s.kinds) {
			return nil, nil, nil, fmt.Errorf("%w: child %d's block claims do not fit its %d kinds", ErrMerged, c, len(s.kinds))
		}
		vbs, ok := expandB(o.VB, zeroBs(s.kinds), field.E{})
		if !ok {
			return nil, nil, nil, fmt.Errorf("%w: child %d's block claims carry %d B0 values, its kinds %d", ErrMerged, c, len(o.VB), countB(s.kinds))
		}
		if tk < 0 {
			return nil, nil, nil, fmt.Errorf("%w: a merge with merged children and no tree table", ErrMerged)
		}
		L := kinds[tk].block.LogSize()
		for j, k := range s.kinds {
			n := k.block.LogSize()
			switch {
			case isTargets(k):
				x := k.block.(*sparseKind)
				children[tk] = append(children[tk], liftTargets(c, w, L, x.logSize, x.rowBits, x.colBits, o.RRow, o.RCol, o.VA[j], vbs[j]))
				continue
			case isRole(k):
				// Its role table, under its subtree's digit of the parent's.
				i, ok := at[k.key]
				if !ok {
					return nil, nil, nil, fmt.Errorf("%w: child %d's role %s is not batched", ErrMerged, c, k.key)
				}
				lr := kinds[i].block.LogSize()
				cl := MatrixClaim{Row: EqWeight(padTo(o.RRow[:n], lr, field.E{})), Col: EqWeight(padTo(o.RCol[:n], lr, field.E{})), VA: o.VA[j]}
				roles = append(roles, roleClaim{Kind: i, Addr: roleDigitPoint(subtreeDigit(c), rw, o.RAddr, ab, field.E{}, field.One), Claim: cl})
				continue
			}
			i, ok := at[k.key]
			if !ok {
				return nil, nil, nil, fmt.Errorf("%w: child %d's block kind %s is not batched", ErrMerged, c, k.key)
			}
			children[i] = append(children[i], o.claim(j, n, vbs[j]))
		}
		// Its carried public terms and linear weights, on the role tables at its own
		// digit.
		mc := s.carried
		if len(mc.Values) != len(s.kept) || len(mc.Points) != len(s.pointLens) {
			return nil, nil, nil, fmt.Errorf("%w: child %d carries %d hints at %d points, its shape %d at %d", ErrMerged, c, len(mc.Values), len(mc.Points), len(s.kept), len(s.pointLens))
		}
		for u, p := range mc.Points {
			if len(p) != s.pointLens[u] {
				return nil, nil, nil, fmt.Errorf("%w: child %d's carried point %d has %d coordinates, its shape %d", ErrMerged, c, u, len(p), s.pointLens[u])
			}
		}
		for _, h := range s.hk {
			i, ok := at[roleKey(h.role())]
			if !ok {
				return nil, nil, nil, fmt.Errorf("%w: child %d's role %s is not batched", ErrMerged, c, h.role())
			}
			cl := h.claim(mc.Points[h.point], mc.Values[h.kept], kinds[i].block.LogSize())
			roles = append(roles, roleClaim{Kind: i, Addr: roleDigitPoint(ownDigit(len(subs), c), rw, nil, ab, field.E{}, field.One), Claim: cl})
		}
		// Its target, on the tree table at its digit.
		kept, pt, err := s.targetSlot()
		if err != nil {
			return nil, nil, nil, err
		}
		if len(mc.Points[pt]) > L {
			return nil, nil, nil, fmt.Errorf("%w: child %d's target point of %d coordinates, the tree table %d", ErrMerged, c, len(mc.Points[pt]), L)
		}
		children[tk] = append(children[tk], targetClaim(c, w, L, mc.Points[pt], mc.Values[kept]))
	}
	return ownAt, children, roles, nil
}

// targetsOf is the index of the tree table among kinds, -1 if none.
func targetsOf(kinds []nrKind) int {
	for i, k := range kinds {
		if isTargets(k) {
			return i
		}
	}
	return -1
}

// boundCounts are, per kind, the number of its claims that a merge's batch does not
// observe: its merged children's, which its statement (absorbed first) carries.
func boundCounts(children [][]MatrixClaim) []int {
	out := make([]int, len(children))
	for i, cs := range children {
		out[i] = len(cs)
	}
	return out
}

// subOuts are the merged children's carried block claims (nil for a leaf).
func subOuts(subs []*nrSub) []*KindsClaim {
	outs := make([]*KindsClaim, len(subs))
	for c, s := range subs {
		if s != nil && s.carried != nil {
			outs[c] = &s.carried.Blocks
		}
	}
	return outs
}

// proveBlocks is the batch's last part: the claims on its role kinds reduced to one
// address point (proveRoles), then the matrix values of each of the merge's segments
// at its lincheck's point (terminals, in segment order; kind by kind, each kind's in
// segment order) sent and batched with the merged children's claims, every kind at
// one point. editRoles (nil but in the forging tests) sees the role claims before
// their address batch and may change them.
func proveBlocks(tr ClaimsProver, l *nrLayout, subs []*nrSub, leaves []*MatrixClaim, terminals []*lincheck.TerminalCheck, editRoles func([]nrKind, []roleClaim), workers par.Workers) (KindsClaim, error) {
	blocks := l.segmentBlocks()
	if len(terminals) != len(blocks) {
		return KindsClaim{}, fmt.Errorf("recursion: %d terminal checks for %d segments", len(terminals), len(blocks))
	}
	kinds, err := batchKinds(l, subs)
	if err != nil {
		return KindsClaim{}, err
	}
	ownAt, children, roles, err := kindClaims(kinds, blocks, subs, subOuts(subs), leaves)
	if err != nil {
		return KindsClaim{}, err
	}
	if editRoles != nil {
		editRoles(kinds, roles)
	}
	rAddr, vals := proveRoles(tr, kinds, roles, roleAddrBits(kinds), workers)
	addRoleClaims(children, roles, vals)
	// Each segment's matrix values come from the walk that also gives the batch its
	// row vector (apartClaims), and are sent in order once all are walked.
	claims := make([][]MatrixClaim, len(kinds))
	cs := make([]Matrices, len(kinds))
	for i, k := range kinds {
		for _, j := range ownAt[i] {
			row, col := terminals[j].Weights()
			claims[i] = append(claims[i], MatrixClaim{Row: row, Col: col})
		}
		cs[i] = kindMatrices(k, rAddr)
	}
	apart, err := apartClaims(cs, claims, workers)
	if err != nil {
		return KindsClaim{}, err
	}
	for i := range kinds {
		for _, c := range claims[i] {
			tr.Send(c.VA)
			tr.Send(c.VB)
		}
		claims[i] = append(claims[i], children[i]...)
	}
	out, err := batchKindClaims(tr, cs, claims, apart, boundCounts(children), zeroBs(kinds), workers)
	out.RAddr = rAddr
	return out, err
}

// addRoleClaims appends the role claims, with their values at the address batch's
// point, to their kinds' claims.
func addRoleClaims(children [][]MatrixClaim, roles []roleClaim, vals []field.E) {
	for t, rc := range roles {
		c := rc.Claim
		c.VA = vals[t]
		children[rc.Kind] = append(children[rc.Kind], c)
	}
}

// verifyBlocks replays proveBlocks: it replays the role claims' address batch,
// receives the segments' matrix values, checks each lincheck's terminal identity with
// them, and replays the batch. It returns the kinds and the batch's output, which the
// verifier evaluates natively (blockChecks).
func verifyBlocks(tr ClaimsVerifier, l *nrLayout, subs []*nrSub, leaves []*MatrixClaim, terminals []*lincheck.TerminalCheck) ([]nrKind, KindsClaim, error) {
	blocks := l.segmentBlocks()
	if len(terminals) != len(blocks) {
		return nil, KindsClaim{}, fmt.Errorf("%w: %d terminal checks for %d segments", ErrMerged, len(terminals), len(blocks))
	}
	kinds, err := batchKinds(l, subs)
	if err != nil {
		return nil, KindsClaim{}, err
	}
	ownAt, children, roles, err := kindClaims(kinds, blocks, subs, subOuts(subs), leaves)
	if err != nil {
		return nil, KindsClaim{}, err
	}
	rAddr, vals, err := verifyRoles(tr, roles, roleAddrBits(kinds))
	if err != nil {
		return nil, KindsClaim{}, fmt.Errorf("%w: the role claims: %w", ErrMerged, err)
	}
	addRoleClaims(children, roles, vals)
	claims := make([][]MatrixClaim, len(kinds))
	logs := make([]int, len(kinds))
	for i, k := range kinds {
		for _, j := range ownAt[i] {
			row, col := terminals[j].Weights()
			c := MatrixClaim{Row: row, Col: col}
			if c.VA, err = tr.Receive(); err == nil {
				c.VB, err = tr.Receive()
			}
			if err != nil {
				return nil, KindsClaim{}, fmt.Errorf("%w: segment %d's matrix values: %w", ErrMerged, j, err)
			}
			if err := terminals[j].CheckValues(c.VA, c.VB); err != nil {
				return nil, KindsClaim{}, fmt.Errorf("%w: segment %d: %w", ErrMerged, j, err)
			}
			claims[i] = append(claims[i], c)
		}
		claims[i] = append(claims[i], children[i]...)
		logs[i] = k.block.LogSize()
	}
	out, err := VerifyKindClaims(tr, logs, claims, boundCounts(children), zeroBs(kinds))
	if err != nil {
		return nil, KindsClaim{}, fmt.Errorf("%w: the block claims: %w", ErrMerged, err)
	}
	out.RAddr = rAddr
	return kinds, out, nil
}

// blockChecks evaluate the batch's block claims natively, one per kind (a role kind
// at the batch's address point: one bilinear form per distinct shape below).
func blockChecks(kinds []nrKind, out KindsClaim) []flows.NativeCheck {
	vbs, ok := expandB(out.VB, zeroBs(kinds), field.E{})
	if !ok || len(out.RAddr) != roleAddrBits(kinds) {
		return []flows.NativeCheck{{What: "the batched block claims", Check: func() error {
			return fmt.Errorf("%w: %d B0 values for %d kinds with a B0, an address point of %d coordinates for %d", ErrMerged, len(out.VB), countB(kinds), len(out.RAddr), roleAddrBits(kinds))
		}}}
	}
	// The largest kinds first: the checks run at most one per core in this order, and
	// the largest (the xmss-aggregate circuit, 2^21 columns) started last would run
	// alone at the end (a one-shot verification of a 2→1 merge: checks 182 → 167–178 ms;
	// two checks at once run slower than one each on this machine).
	order := make([]int, len(kinds))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return kinds[b].block.LogSize() - kinds[a].block.LogSize() })
	checks := make([]flows.NativeCheck, len(kinds))
	for c, i := range order {
		k := kinds[i]
		checks[c] = flows.NativeCheck{What: "the batched " + k.key + " claim", Check: func() error {
			return CheckMatrixClaim(kindEval(k, out.RAddr), out.claim(i, k.block.LogSize(), vbs[i]))
		}}
	}
	return checks
}

// tapeHints are a merged child's carried hints read from its parent's atoms: each
// distinct point, and the values in kept-hint order.
type tapeHints struct {
	points [][]Lin
	values []Lin
}

// tapeBlockOut is the block claims' batch replayed on a parent's tape.
type tapeBlockOut struct {
	rRow, rCol, va, vb, rAddr []Lin
}

// blocksOn replays a merged child's proveBlocks on the parent's tape: its segments'
// claims at the points its replay committed (st, each value received and asserted
// equal to the segment's matrix hint, hint(h) for st.Hints[h]), and its merged
// children's batched claims and its leaves' deferred matrix claims read from its atoms
// (children, nil for a leaf; leaves, nil for a merged child).
func (s *nrSub) blocksOn(t *Tape, sb *tapeTr, st *SegmentsTape, hint func(h int) Lin, children []*tapeBlockOut, childHints []*tapeHints, leaves []*TapeMatrixClaim) tapeBlockOut {
	blocks := s.lm.segmentBlocks()
	hintOf := map[[2]int]int{}
	for h, hk := range st.Hints {
		if hk.Kind == HintSegmentA || hk.Kind == HintSegmentB {
			hintOf[[2]int{int(hk.Kind), hk.Of}] = h
		}
	}
	at := map[string]int{}
	for i, k := range s.kinds {
		at[k.key] = i
	}
	byKind := make([][]TapeMatrixClaim, len(s.kinds))
	var roles []tapeRoleClaim
	tk, w := targetsOf(s.kinds), digitBits(len(children))
	rw, ab := roleBits(len(children)), roleAddrBits(s.kinds)
	zero := ConstLin(field.E{})
	xk := at[blockKey(xmssKind{})]
	for c, o := range children {
		if o == nil {
			if leaves[c] != nil {
				byKind[xk] = append(byKind[xk], *leaves[c])
			}
			continue
		}
		L := s.kinds[tk].block.LogSize()
		// o was read from the child's atoms by its shape's lengths: it fits.
		vbs, _ := expandB(o.vb, zeroBs(s.childKinds[c]), ConstLin(field.E{}))
		for j, k := range s.childKinds[c] {
			n := k.block.LogSize()
			if isTargets(k) {
				x := k.block.(*sparseKind)
				byKind[tk] = append(byKind[tk], tapeLiftTargets(t, c, w, L, n, x.rowBits, x.colBits, o.rRow, o.rCol, o.va[j], vbs[j]))
				continue
			}
			i := at[k.key]
			if isRole(k) {
				lr := s.kinds[i].block.LogSize()
				cl := pointClaim(padTo(o.rRow[:n], lr, zero), padTo(o.rCol[:n], lr, zero), oneLin, o.va[j], zero)
				roles = append(roles, tapeRoleClaim{Kind: i, Addr: roleDigitPoint(subtreeDigit(c), rw, o.rAddr, ab, zero, oneLin), Claim: cl})
				continue
			}
			byKind[i] = append(byKind[i], pointClaim(o.rRow[:n], o.rCol[:n], oneLin, o.va[j], vbs[j]))
		}
		// The merged child's carried public terms and linear weights (kindClaims).
		h := childHints[c]
		for _, hk := range s.lsubs[c].hk {
			i := at[roleKey(hk.role())]
			cl := hk.tapeClaim(t, h.points[hk.point], h.values[hk.kept], s.kinds[i].block.LogSize())
			roles = append(roles, tapeRoleClaim{Kind: i, Addr: roleDigitPoint(ownDigit(len(children), c), rw, nil, ab, zero, oneLin), Claim: cl})
		}
		// Its target, on the tree table at its digit (kindClaims).
		kept, pt, _ := s.lsubs[c].targetSlot()
		byKind[tk] = append(byKind[tk], tapeTargetClaim(c, w, L, h.points[pt], h.values[kept]))
	}
	// The role claims' address batch comes first (proveBlocks).
	rAddr, vals := tapeRoles(t, sb, roles, ab)
	for r, rc := range roles {
		cl := rc.Claim
		cl.VA = vals[r]
		byKind[rc.Kind] = append(byKind[rc.Kind], cl)
	}
	claims := make([][]TapeMatrixClaim, len(s.kinds))
	logs := make([]int, len(s.kinds))
	bound := make([]int, len(s.kinds))
	for i, k := range s.kinds {
		for j, b := range blocks {
			if blockKey(b) != k.key {
				continue
			}
			ft := st.Flock[j]
			va, vb := sb.Receive(), sb.Receive()
			t.Equal("a segment's A0 value", va, hint(hintOf[[2]int{int(HintSegmentA), j}]))
			t.Equal("a segment's B0 value", vb, hint(hintOf[[2]int{int(HintSegmentB), j}]))
			claims[i] = append(claims[i], TapeMatrixClaim{RowLow: ft.skip, RowHigh: ft.chiIn, ColLow: ft.s, ColHigh: ft.chiInPrime, VA: va, VB: vb})
		}
		claims[i] = append(claims[i], byKind[i]...)
		logs[i], bound[i] = k.block.LogSize(), len(byKind[i])
	}
	o := tapeBlockOut{rAddr: rAddr}
	o.rRow, o.rCol, o.va, o.vb = tapeBatchKinds(t, sb, logs, claims, bound, zeroBs(s.kinds))
	return o
}
