package recursion

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// Role kinds (docs/recursion.md §6.13). A merged child's carried public terms and
// linear weights are bilinear forms of matrices its shape fixes: the public table of
// its segment j, the relation matrix of its segment j. Keyed by shape, every new
// shape below a node added about fifteen kinds to the node's batch, and every
// ancestor replays that batch in its circuit, so a node grew with its depth. A role
// kind is one kind per *role* (the public table of segment j, the relation matrix of
// segment j) whatever the shapes below, addressed by tree position like the tree
// table (§6.11): K_ρ(a, i, j) = M_{shape(X), ρ}(i, j) for the merged descendant X at
// address a, each matrix in the top-left corner of the role's square block.
//
// Addresses. A node of k children gives child c two digits of roleBits(k) bits: its
// own, k+1+c, where the child's own matrices are, and its subtree's, c+1, under which
// the child's role table sits: K_P(c+1 + a<<w) = K_X(a) for every address a of the
// child's table. A node's own matrices are not in its own table (its address 0 is
// empty), so a node never needs its own matrices, which a prover would otherwise have
// to compute from a replay of its own verification.
//
// The batch. Claims on role kinds carry an address point besides their row and column
// weights; their batch starts with a sumcheck over the address bits alone
// (proveRoles): Σ_t λ_t·v_t = Σ_a Σ_t λ_t·eq(A_t, a)·K_ρt(a; Row_t, Col_t). Its
// output is one address point r_a for every role and, per claim, the value of the
// role's table at r_a with the claim's own weights: a claim on the matrix
// K_ρ(r_a) = Σ_s W_s(r_a)·M_s (W_s the eq weights of shape s's addresses), which
// joins the kinds' batch as that role's claims (BatchKindClaims). The prover walks
// each distinct matrix once per claim; the root evaluates each role at (r_a, r_row,
// r_col) as one bilinear form per distinct shape.

// rolePrefix starts a role kind's key.
const rolePrefix = "role:"

// roleBits is the width of a node's address digits among k children (2k digits
// besides 0: each child's own and its subtree's).
func roleBits(k int) int { return bits.Len(uint(2 * k)) }

// ownDigit is child c's own digit among k children (its matrices); subtreeDigit
// its subtree's (its own role table).
func ownDigit(k, c int) int  { return k + 1 + c }
func subtreeDigit(c int) int { return c + 1 }

// roleEntry is an address of a role table and the index of its matrix.
type roleEntry struct{ addr, mat int }

// roleKind is a role's table at a node: the distinct matrices of its addresses.
type roleKind struct {
	role     string
	logSize  int
	addrBits int
	mats     []*sparseKind
	entries  []roleEntry // by increasing address
}

// LogSize is log2 of the square block every matrix of the role is embedded in.
func (r *roleKind) LogSize() int { return r.logSize }

// isRole reports whether k is a role kind.
func isRole(k nrKind) bool { _, ok := k.block.(*roleKind); return ok }

// roleKey is the kind key of role name.
func roleKey(role string) string { return rolePrefix + role }

// roleAddrBits is the address width of a batch's role kinds (all alike; 0: none).
func roleAddrBits(kinds []nrKind) int {
	for _, k := range kinds {
		if r, ok := k.block.(*roleKind); ok {
			return r.addrBits
		}
	}
	return 0
}

// at is the role's table at address point rAddr: Σ_s W_s·M_s.
func (r *roleKind) at(rAddr []field.E) *roleAt {
	w := make([]field.E, len(r.mats))
	for _, e := range r.entries {
		w[e.mat] = w[e.mat].Add(eqIndex(rAddr, e.addr))
	}
	return &roleAt{logSize: r.logSize, mats: r.mats, w: w}
}

// roleKinds are the role tables of a node whose children are subs (nil for a leaf):
// each merged child's carried hints' matrices at its own digit, its own role tables
// under its subtree's digit. Nil when no child is merged.
func roleKinds(subs []*nrSub) ([]*roleKind, error) {
	k := len(subs)
	w := roleBits(k)
	deepest := 0
	for _, s := range subs {
		if s != nil {
			deepest = max(deepest, roleAddrBits(s.kinds))
		}
	}
	type table struct {
		at   map[int]*sparseKind
		mats []*sparseKind
	}
	byRole := map[string]*table{}
	add := func(role string, addr int, m *sparseKind) error {
		tb := byRole[role]
		if tb == nil {
			tb = &table{at: map[int]*sparseKind{}}
			byRole[role] = tb
		}
		if _, dup := tb.at[addr]; dup {
			return fmt.Errorf("%w: role %s has two matrices at address %d", ErrMerged, role, addr)
		}
		tb.at[addr] = m
		if !slices.Contains(tb.mats, m) {
			tb.mats = append(tb.mats, m)
		}
		return nil
	}
	for c, s := range subs {
		if s == nil {
			continue
		}
		for _, h := range s.hk {
			if err := add(h.role(), ownDigit(k, c), h.mat); err != nil {
				return nil, err
			}
		}
		for _, kd := range s.kinds {
			rk, ok := kd.block.(*roleKind)
			if !ok {
				continue
			}
			for _, e := range rk.entries {
				if err := add(rk.role, subtreeDigit(c)+e.addr<<w, rk.mats[e.mat]); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(byRole) == 0 {
		return nil, nil
	}
	out := make([]*roleKind, 0, len(byRole))
	for role, tb := range byRole {
		rk := &roleKind{role: role, addrBits: w + deepest, mats: tb.mats}
		for _, m := range tb.mats {
			rk.logSize = max(rk.logSize, m.logSize)
		}
		for a, m := range tb.at {
			rk.entries = append(rk.entries, roleEntry{addr: a, mat: slices.Index(tb.mats, m)})
		}
		slices.SortFunc(rk.entries, func(x, y roleEntry) int { return x.addr - y.addr })
		out = append(out, rk)
	}
	slices.SortFunc(out, func(x, y *roleKind) int { return strings.Compare(x.role, y.role) })
	return out, nil
}

// roleAt is a role's table at an address point: a combination of sparse matrices,
// each in the top-left corner of the role's block (B0 zero).
type roleAt struct {
	logSize int
	mats    []*sparseKind
	w       []field.E
}

func (r *roleAt) LogSize() int  { return r.logSize }
func (r *roleAt) ConstCol() int { return 0 }

// BilinearTensor is Σ_s W_s·eᵀ·M_s·w.
func (r *roleAt) BilinearTensor(e, w circuit.Tensor) (va, vb field.E) {
	for i, m := range r.mats {
		if r.w[i].IsZero() {
			continue
		}
		v, _ := m.BilinearTensor(e, w)
		va = va.Add(r.w[i].Mul(v))
	}
	return va, field.E{}
}

// RowsTensorOn hands Σ_s W_s·M_s·w to sink.
func (r *roleAt) RowsTensorOn(w circuit.Tensor, _ field.E, sink circuit.RowSink, _ par.Workers) {
	v := make([]field.E, 1<<r.logSize)
	for i, m := range r.mats {
		if !r.w[i].IsZero() {
			field.AddScaledE(v[:1<<m.logSize], m.rowValues(w), r.w[i])
		}
	}
	sinkDense(v, sink)
}

// TransposeTensorWith writes Σ_s W_s·M_sᵀ·e into dst.
func (r *roleAt) TransposeTensorWith(dst []field.E, spare func(int) []field.E, e circuit.Tensor, mu field.E, workers par.Workers) {
	clear(dst)
	var tmp []field.E
	for i, m := range r.mats {
		if r.w[i].IsZero() {
			continue
		}
		n := 1 << m.logSize
		if len(tmp) < n {
			tmp = make([]field.E, n)
		}
		m.TransposeTensorWith(tmp[:n], spare, e, mu, workers)
		field.AddScaledE(dst[:n], tmp[:n], r.w[i])
	}
}

// kindMatrices is what a batch walks of kind k: a role kind at the batch's address
// point rAddr, any other its fixed matrices (a block's compiled circuit).
func kindMatrices(k nrKind, rAddr []field.E) Matrices {
	if r, ok := k.block.(*roleKind); ok {
		return r.at(rAddr)
	}
	return k.block.(fixedBlock).batchMatrices()
}

// kindEval is what a verifier evaluates of kind k at the batch's point: a role kind
// at the address point rAddr, any other its matrices as a verifier describes them.
func kindEval(k nrKind, rAddr []field.E) interface {
	LogSize() int
	BilinearTensor(e, w circuit.Tensor) (va, vb field.E)
} {
	if r, ok := k.block.(*roleKind); ok {
		return r.at(rAddr)
	}
	return k.block.(fixedBlock).Matrices()
}

// roleClaim is a claim on role kind Kind (an index among the batch's kinds) at
// address point Addr, with the role block's row and column weights and its value
// (VB zero).
type roleClaim struct {
	Kind  int
	Addr  []field.E
	Claim MatrixClaim
}

// tapeRoleClaim is a roleClaim on a tape (point form).
type tapeRoleClaim struct {
	Kind  int
	Addr  []Lin
	Claim TapeMatrixClaim
}

// roleDigitPoint is the address point of digit d among w bits, then rest, padded with
// zeros to n coordinates.
func roleDigitPoint[T any](d, w int, rest []T, n int, zero, one T) []T {
	out := make([]T, 0, n)
	for i := range w {
		if d>>i&1 == 1 {
			out = append(out, one)
		} else {
			out = append(out, zero)
		}
	}
	return padTo(append(out, rest...), n, zero)
}

// proveRoles is the role claims' address batch: it draws one λ per claim (every
// claim is bound by the statement), runs addrBits rounds of Σ_a Σ_t λ_t·eq(A_t, a)·
// g_t(a), g_t(a) the claim's weights on the matrix at address a, and sends each
// claim's g_t at the output point r_a, which it returns with the values.
func proveRoles(tr ClaimsProver, kinds []nrKind, claims []roleClaim, addrBits int, workers par.Workers) (rAddr, vals []field.E) {
	if len(claims) == 0 {
		return nil, nil
	}
	lambda := make([]field.E, len(claims))
	for t := range lambda {
		lambda[t] = tr.Sample()
	}
	f := make([][]field.E, len(claims))
	g := make([][]field.E, len(claims))
	eachClaim(len(claims), workers, func(t int, _ par.Workers) {
		rc := claims[t]
		rk := kinds[rc.Kind].block.(*roleKind)
		f[t] = make([]field.E, 1<<addrBits)
		field.EqTable(f[t], rc.Addr)
		at := make([]field.E, len(rk.mats))
		for i, m := range rk.mats {
			at[i], _ = m.BilinearTensor(rc.Claim.Row, rc.Claim.Col)
		}
		g[t] = make([]field.E, 1<<addrBits)
		for _, e := range rk.entries {
			g[t][e.addr] = at[e.mat]
		}
	})
	rAddr = make([]field.E, addrBits)
	proveProductRounds(tr, rAddr, f, g, lambda)
	vals = make([]field.E, len(claims))
	for t := range claims {
		vals[t] = g[t][0]
		tr.Send(vals[t])
	}
	return rAddr, vals
}

// verifyRoles replays proveRoles: it returns the address point and the claims'
// values there, which are claims on the role kinds' tables at that point.
func verifyRoles(tr ClaimsVerifier, claims []roleClaim, addrBits int) (rAddr, vals []field.E, err error) {
	if len(claims) == 0 {
		return nil, nil, nil
	}
	lambda := make([]field.E, len(claims))
	var running field.E
	for t, rc := range claims {
		if len(rc.Addr) != addrBits || !rc.Claim.VB.IsZero() {
			return nil, nil, fmt.Errorf("%w: role claim %d has an address of %d coordinates (want %d) or a B0 value", ErrClaimShape, t, len(rc.Addr), addrBits)
		}
		lambda[t] = tr.Sample()
		running = running.Add(lambda[t].Mul(rc.Claim.VA))
	}
	rAddr, running, err = verifyProductRounds(tr, addrBits, running, "role claims' address batch")
	if err != nil {
		return nil, nil, err
	}
	vals = make([]field.E, len(claims))
	var total field.E
	for t, rc := range claims {
		if vals[t], err = tr.Receive(); err != nil {
			return nil, nil, fmt.Errorf("recursion: role claim %d's value: %w", t, err)
		}
		total = total.Add(lambda[t].Mul(field.EqEval(rc.Addr, rAddr)).Mul(vals[t]))
	}
	if total != running {
		return nil, nil, ErrBatch
	}
	return rAddr, vals, nil
}

// tapeRoles replays verifyRoles on a tape.
func tapeRoles(t *Tape, s *tapeTr, claims []tapeRoleClaim, addrBits int) (rAddr, vals []Lin) {
	if len(claims) == 0 {
		return nil, nil
	}
	lambda := make([]Lin, len(claims))
	var running Lin
	for i, rc := range claims {
		lambda[i] = s.Sample()
		running = running.Add(t.Mul(lambda[i], rc.Claim.VA))
	}
	rAddr = make([]Lin, addrBits)
	for i := range rAddr {
		q := s.roundPoly(3, running, nil)
		rAddr[i] = s.Sample()
		running = t.Poly(q, rAddr[i])
	}
	vals = make([]Lin, len(claims))
	var total Lin
	for i, rc := range claims {
		vals[i] = s.Receive()
		total = total.Add(t.Mul(t.Mul(lambda[i], t.EqEval(rc.Addr, rAddr)), vals[i]))
	}
	t.Equal("the role claims' address batch", total, running)
	return rAddr, vals
}
