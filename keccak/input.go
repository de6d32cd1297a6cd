package keccak

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
)

// PairSize is the size of one permutation's entry in a states string: its input
// state, then its output state.
const PairSize = 2 * StateSize

// ErrStates reports a malformed states string or statement.
var ErrStates = errors.New("keccak: malformed states")

// Input is a batch of permutations: N input states and their output states,
// held as the states string (N × 400 bytes: each permutation's input state, then
// its output state, FIPS 202 state strings).
type Input struct {
	states []byte
}

// NewInput returns the batch of the permutations of the given input states
// (N × 200 bytes, N ≥ 1), computing their outputs.
func NewInput(inputStates []byte) (*Input, error) {
	if len(inputStates) == 0 || len(inputStates)%StateSize != 0 {
		return nil, fmt.Errorf("%w: %d bytes of input states, not a positive multiple of %d", ErrStates, len(inputStates), StateSize)
	}
	n := len(inputStates) / StateSize
	in := &Input{states: make([]byte, n*PairSize)}
	for j := range n {
		s := StateFrom(inputStates[j*StateSize:])
		copy(in.states[j*PairSize:], inputStates[j*StateSize:(j+1)*StateSize])
		Permute(&s)
		out := s.Bytes()
		copy(in.states[j*PairSize+StateSize:], out[:])
	}
	return in, nil
}

// InputFromStates reads a states string (N × 400 bytes) and checks every output
// state natively (an error naming the first permutation whose output is wrong).
func InputFromStates(states []byte) (*Input, error) {
	if err := checkStatesLen(states); err != nil {
		return nil, err
	}
	for j := range len(states) / PairSize {
		s := StateFrom(states[j*PairSize:])
		Permute(&s)
		if out := s.Bytes(); !bytes.Equal(out[:], states[j*PairSize+StateSize:(j+1)*PairSize]) {
			return nil, fmt.Errorf("%w: permutation %d: the output state is not Keccak-f[1600] of the input state", ErrStates, j)
		}
	}
	return &Input{states: bytes.Clone(states)}, nil
}

func checkStatesLen(states []byte) error {
	if len(states) == 0 || len(states)%PairSize != 0 {
		return fmt.Errorf("%w: %d bytes, not a positive multiple of %d", ErrStates, len(states), PairSize)
	}
	return nil
}

// GenerateInput returns n permutations of input states drawn from
// PCG(seed, 0x6b656363616b) (the same (n, seed) always gives the same batch).
func GenerateInput(n int, seed uint64) *Input {
	rng := rand.New(rand.NewPCG(seed, 0x6b656363616b))
	ins := make([]byte, n*StateSize)
	for i := 0; i < len(ins); i += 8 {
		binary.LittleEndian.PutUint64(ins[i:], rng.Uint64())
	}
	in, _ := NewInput(ins)
	return in
}

// Len is the number of permutations.
func (in *Input) Len() int { return len(in.states) / PairSize }

// States returns the states string (shared: do not modify).
func (in *Input) States() []byte { return in.states }

// InputState and OutputState return permutation j's states.
func (in *Input) InputState(j int) State  { return StateFrom(in.states[j*PairSize:]) }
func (in *Input) OutputState(j int) State { return StateFrom(in.states[j*PairSize+StateSize:]) }

// Statement is the keccak-batch statement: the permutation count and the states
// string. Its JSON form (the statement's data, beside N in PROOF.json) is
// {"permutations": N, "states": base64 of the states string}; the command line
// keeps the states in the file PROOF.states instead.
type Statement struct {
	Permutations int
	States       []byte
}

type statementJSON struct {
	Permutations *int    `json:"permutations"`
	States       *string `json:"states"`
}

// MarshalJSON writes {"permutations":N,"states":"<base64>"} (compact; base64 needs
// no escaping).
func (s Statement) MarshalJSON() ([]byte, error) { return s.appendJSON(par.Serial(), nil), nil }

// encodeChunk is the states' bytes one task of appendJSON encodes: a multiple of
// 3, so that every chunk but the last encodes to whole base64 quanta without
// padding and the chunks' encodings join into the encoding of the whole.
const encodeChunk = 3 << 14

// appendJSON appends MarshalJSON's bytes to b, encoding the states in chunks of
// encodeChunk bytes on w (the same bytes for any w).
func (s Statement) appendJSON(w par.Workers, b []byte) []byte {
	enc := base64.StdEncoding
	if need := len(b) + 48 + enc.EncodedLen(len(s.States)); cap(b) < need {
		// make, not append's growth: memory fresh from the system is not cleared
		// first, so the workers' encoding is what first touches its pages.
		b = append(make([]byte, 0, need), b...)
	}
	b = append(b, `{"permutations":`...)
	b = strconv.AppendInt(b, int64(s.Permutations), 10)
	b = append(b, `,"states":"`...)
	start, n := len(b), len(s.States)
	b = b[:start+enc.EncodedLen(n)]
	w.Range((n+encodeChunk-1)/encodeChunk, func(lo, hi int) {
		src := s.States[lo*encodeChunk : min(hi*encodeChunk, n)]
		enc.Encode(b[start+lo*encodeChunk/3*4:], src)
	})
	return append(b, `"}`...)
}

// UnmarshalJSON reads the JSON form strictly (both fields, no others) and checks
// the states' length against the count. The compact form MarshalJSON writes is
// read without a JSON scan of the states; any other form goes through
// encoding/json.
func (s *Statement) UnmarshalJSON(b []byte) error {
	n, states, ok := parseCompact(b)
	if !ok {
		var err error
		if n, states, err = parseJSON(b); err != nil {
			return err
		}
	}
	return s.fromParts(n, states)
}

// fromParts checks and decodes the two fields' values.
func (s *Statement) fromParts(n int, states []byte) error {
	raw, err := base64.StdEncoding.AppendDecode(nil, states)
	if err != nil {
		return fmt.Errorf("%w: states: %v", ErrStates, err)
	}
	if n < 1 || len(raw) != n*PairSize {
		return fmt.Errorf("%w: %d permutations but %d bytes of states (want %d each)", ErrStates, n, len(raw), PairSize)
	}
	*s = Statement{Permutations: n, States: raw}
	return nil
}

// parseJSON reads the statement's object with encoding/json: both fields, no
// others, nothing after it.
func parseJSON(b []byte) (n int, states []byte, err error) {
	var j statementJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return 0, nil, fmt.Errorf("%w: %v", ErrStates, err)
	}
	if dec.More() {
		return 0, nil, fmt.Errorf("%w: data after the statement", ErrStates)
	}
	if j.Permutations == nil || j.States == nil {
		return 0, nil, fmt.Errorf("%w: the statement needs \"permutations\" and \"states\"", ErrStates)
	}
	return *j.Permutations, []byte(*j.States), nil
}

// parseCompact reads exactly {"permutations":<digits>,"states":"<base64 chars>"}.
func parseCompact(b []byte) (n int, states []byte, ok bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"permutations":`))
	if !ok {
		return 0, nil, false
	}
	i := 0
	for i < len(rest) && i < 10 && rest[i] >= '0' && rest[i] <= '9' {
		n = 10*n + int(rest[i]-'0')
		i++
	}
	if i == 0 || (rest[0] == '0' && i > 1) {
		return 0, nil, false
	}
	rest, ok = bytes.CutPrefix(rest[i:], []byte(`,"states":"`))
	if !ok {
		return 0, nil, false
	}
	states, ok = bytes.CutSuffix(rest, []byte(`"}`))
	if !ok {
		return 0, nil, false
	}
	// The base64 decoder refuses every other byte outside its alphabet, but skips
	// CR and LF (which a JSON string cannot hold raw), and a JSON escape or quote
	// needs the JSON reader.
	for _, c := range []byte{'\\', '"', '\r', '\n'} {
		if bytes.IndexByte(states, c) >= 0 {
			return 0, nil, false
		}
	}
	return n, states, true
}

// statementLabel frames the statement's bytes in the transcript.
const statementLabel = "keccak-batch/statement/v0"

// AbsorbBytes is what the transcript absorbs after the flow's label:
// statementLabel ‖ LE64(N) ‖ SHA-256(states string).
func (s Statement) AbsorbBytes() []byte {
	d := sha256.Sum256(s.States)
	b := append([]byte(statementLabel), binary.LittleEndian.AppendUint64(nil, uint64(s.Permutations))...)
	return append(b, d[:]...)
}

// Window is the public term's window of layout l: columns [0, 2^WindowLog) with
// the 2·1600·Perms state columns pinned.
func (l Layout) Window() lincheck.Window {
	w := lincheck.Window{Offset: 0, Log: l.WindowLog(), Mask: make([]uint64, (1<<l.WindowLog()+63)/64)}
	for j := range l.ConstCol() / 64 {
		w.Mask[j] = ^uint64(0)
	}
	return w
}

// Public is the public term of a statement under a layout: block s's pinned bits
// are the states of permutations s·Perms .. s·Perms+Perms−1 (past N, permutation
// 0's), in the order of the states string, so a block's window is Perms × 400
// bytes of it read as little-endian bits. It implements lincheck.Public.
type Public struct {
	l      Layout
	states []byte
}

// NewPublic returns the public term of a states string (N × 400 bytes) under
// layout l.
func NewPublic(l Layout, states []byte) (*Public, error) {
	l.check()
	if err := checkStatesLen(states); err != nil {
		return nil, err
	}
	return &Public{l: l, states: states}, nil
}

var _ lincheck.Public = (*Public)(nil)

// Window is the pinned window.
func (p *Public) Window() lincheck.Window { return p.l.Window() }

// blockBytes returns block s's window bytes (Perms × 400).
func (p *Public) blockBytes(s int, buf []byte) []byte {
	n := len(p.states) / PairSize
	j0 := s * p.l.Perms
	if j0+p.l.Perms <= n {
		return p.states[j0*PairSize : (j0+p.l.Perms)*PairSize]
	}
	buf = buf[:0]
	for j := j0; j < j0+p.l.Perms; j++ {
		src := j
		if src >= n {
			src = 0
		}
		buf = append(buf, p.states[src*PairSize:(src+1)*PairSize]...)
	}
	return buf
}

// Eval returns P(τ, chi_out) = Σ_s eq(chi_out, s)·Σ_j eq(τ, j)·bit j of block s.
// Each nibble position q of a block gets a 16-entry table of the subset sums of
// its four columns' weights eq(τ, 4q..4q+3) (the tables of a block's 3200·Perms
// columns stay in a core's L2), so a block costs two lookups and additions per
// state byte; padding slots repeat block 0.
func (p *Public) Eval(tau, chiOut []field.E) field.E {
	nb := p.l.Perms * PairSize
	w := make([]field.E, 1<<len(tau))
	field.EqTable(w, tau)
	tab := make([][16]field.E, 2*nb)
	for q := range tab {
		t := &tab[q]
		for v := 1; v < 16; v++ {
			t[v] = t[v&(v-1)].Add(w[4*q+bits.TrailingZeros8(uint8(v))])
		}
	}
	eqOut := make([]field.E, 1<<len(chiOut))
	field.EqTable(eqOut, chiOut)
	live := (len(p.states)/PairSize + p.l.Perms - 1) / p.l.Perms
	live = min(live, len(eqOut))
	buf := make([]byte, 0, nb)
	var acc, pad field.E
	for _, e := range eqOut[live:] {
		pad = pad.Add(e)
	}
	for s := range live {
		var v0, v1, v2 field.K
		for q, x := range p.blockBytes(s, buf) {
			lo, hi := &tab[2*q][x&15], &tab[2*q+1][x>>4]
			v0 ^= lo.C0 ^ hi.C0
			v1 ^= lo.C1 ^ hi.C1
			v2 ^= lo.C2 ^ hi.C2
		}
		e := eqOut[s]
		if s == 0 {
			e = e.Add(pad)
		}
		acc = acc.Add(e.Mul(field.E{C0: v0, C1: v1, C2: v2}))
	}
	return acc
}

// Table returns the same public term as a lincheck.Table (the package's direct
// form; tests compare the two).
func (p *Public) Table() *lincheck.Table {
	live := (len(p.states)/PairSize + p.l.Perms - 1) / p.l.Perms
	t := &lincheck.Table{W: p.Window(), Rows: make([][]uint64, live)}
	for s := range live {
		b := p.blockBytes(s, nil)
		row := make([]uint64, len(p.Window().Mask))
		for k := range len(b) / 8 {
			row[k] = binary.LittleEndian.Uint64(b[8*k:])
		}
		t.Rows[s] = row
	}
	return t
}
