package aggregate

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/xmss"
)

// Input is the flow's input: one message and epoch, and the signers in statement
// order (not sorted; duplicate public keys are refused). Block s of a proof holds
// signer s's verification; padding blocks repeat signer 0's.
type Input struct {
	Message xmss.Message
	Epoch   uint32
	Signers []Signer
}

// Signer is one public key and its signature on the input's message and epoch.
type Signer struct {
	PublicKey xmss.PublicKey
	Signature xmss.Signature
}

// Len is the number of signers.
func (in *Input) Len() int { return len(in.Signers) }

// Block is signer i's per-block statement.
func (in *Input) Block(i int) Statement {
	return Statement{PublicKey: in.Signers[i].PublicKey, Epoch: in.Epoch, Message: in.Message}
}

// PublicKeys returns the signers' keys in order.
func (in *Input) PublicKeys() []xmss.PublicKey {
	keys := make([]xmss.PublicKey, len(in.Signers))
	for i, s := range in.Signers {
		keys[i] = s.PublicKey
	}
	return keys
}

// Aggregate is the aggregation statement: the message, the epoch and the key list,
// in order. Its JSON form is the statement part of a proof's PROOF.json, and it
// reads a whole PROOF.json of this flow too (ProofJSON), so the statement round-trips.
type Aggregate struct {
	Message    xmss.Message
	Epoch      uint32
	PublicKeys []xmss.PublicKey
}

// Statement is the input's aggregation statement.
func (in *Input) Aggregate() Aggregate {
	return Aggregate{Message: in.Message, Epoch: in.Epoch, PublicKeys: in.PublicKeys()}
}

// Statement is the statement data flows records (Aggregate's JSON).
func (in *Input) Statement() json.RawMessage {
	b, _ := json.Marshal(in.Aggregate())
	return b
}

// ErrStatement reports a malformed aggregation statement or input file.
var ErrStatement = errors.New("aggregate: malformed statement")

type aggregateJSON struct {
	Message    string     `json:"message"`
	Epoch      *epochJSON `json:"epoch"`
	PublicKeys []string   `json:"public_keys"`
}

// MarshalJSON writes {"message": hex, "epoch": e, "public_keys": [hex, …]}.
func (a Aggregate) MarshalJSON() ([]byte, error) {
	keys := make([]string, len(a.PublicKeys))
	for i, pk := range a.PublicKeys {
		b := pk.Bytes()
		keys[i] = hex.EncodeToString(b[:])
	}
	e := epochJSON(a.Epoch)
	return json.Marshal(aggregateJSON{Message: hex.EncodeToString(a.Message[:]), Epoch: &e, PublicKeys: keys})
}

// UnmarshalJSON reads the JSON form strictly: every field present, lowercase hex of
// the exact lengths, no duplicate keys (nor two differing only in case), no other
// fields than a PROOF.json's own (flow, n, log_inv_rate, label, format), which are
// checked against the statement when present (proofJSON).
func (a *Aggregate) UnmarshalJSON(b []byte) error {
	if ag, ok := parseCanonical(b); ok {
		*a = ag
		return nil
	}
	return a.unmarshalStrict(b)
}

// unmarshalStrict is UnmarshalJSON without the canonical form's fast path.
func (a *Aggregate) unmarshalStrict(b []byte) error {
	if err := flows.CheckJSONKeys(b); err != nil {
		return fmt.Errorf("%w: %v", ErrStatement, err)
	}
	var pj proofJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pj); err != nil {
		return fmt.Errorf("%w: %v", ErrStatement, err)
	}
	j := pj.aggregateJSON
	if err := pj.check(len(j.PublicKeys)); err != nil {
		return err
	}
	switch {
	case j.Epoch == nil:
		return fmt.Errorf("%w: no \"epoch\"", ErrStatement)
	case j.PublicKeys == nil:
		return fmt.Errorf("%w: no \"public_keys\"", ErrStatement)
	}
	var out Aggregate
	if err := decodeHex(out.Message[:], j.Message, "message"); err != nil {
		return err
	}
	out.Epoch = uint32(*j.Epoch)
	out.PublicKeys = make([]xmss.PublicKey, len(j.PublicKeys))
	for i, s := range j.PublicKeys {
		var raw [xmss.PublicKeySize]byte
		if err := decodeHex(raw[:], s, fmt.Sprintf("public_keys[%d]", i)); err != nil {
			return err
		}
		pk, err := xmss.ParsePublicKey(raw[:])
		if err != nil {
			return fmt.Errorf("%w: public_keys[%d]: %v", ErrStatement, i, err)
		}
		out.PublicKeys[i] = pk
	}
	if err := checkDistinct(out.PublicKeys); err != nil {
		return err
	}
	*a = out
	return nil
}

// decodeHex fills dst from lowercase hex of exactly 2·len(dst) digits.
func decodeHex(dst []byte, s, what string) error {
	if len(s) != 2*len(dst) {
		return fmt.Errorf("%w: %s: %d hex digits, want %d", ErrStatement, what, len(s), 2*len(dst))
	}
	if strings.ToLower(s) != s {
		return fmt.Errorf("%w: %s: use lowercase hex", ErrStatement, what)
	}
	if _, err := hex.Decode(dst, []byte(s)); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrStatement, what, err)
	}
	return nil
}

// checkDistinct refuses a key list with a repeated key, naming both positions.
func checkDistinct(keys []xmss.PublicKey) error {
	seen := make(map[xmss.PublicKey]int, len(keys))
	for i, pk := range keys {
		if j, ok := seen[pk]; ok {
			return fmt.Errorf("%w: public key %d repeats public key %d (%s)", ErrStatement, i, j, pk)
		}
		seen[pk] = i
	}
	return nil
}

type signerJSON struct {
	PublicKey string `json:"public_key"`
	Signature string `json:"signature"`
}

type inputJSON struct {
	Message string       `json:"message"`
	Epoch   *epochJSON   `json:"epoch"`
	Signers []signerJSON `json:"signers"`
}

// MarshalJSON writes the input file form: {"message", "epoch", "signers":
// [{"public_key", "signature"}, …]}, lowercase hex of the reference's layouts.
func (in *Input) MarshalJSON() ([]byte, error) {
	s := make([]signerJSON, len(in.Signers))
	for i, sg := range in.Signers {
		pk, sig := sg.PublicKey.Bytes(), sg.Signature.Bytes()
		s[i] = signerJSON{PublicKey: hex.EncodeToString(pk[:]), Signature: hex.EncodeToString(sig[:])}
	}
	e := epochJSON(in.Epoch)
	return json.Marshal(inputJSON{Message: hex.EncodeToString(in.Message[:]), Epoch: &e, Signers: s})
}

// ParseInput reads an input file strictly (see MarshalJSON); it does not verify the
// signatures (Invalid does). Errors wrap ErrStatement and name the field.
func ParseInput(data []byte) (*Input, error) {
	var j inputJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStatement, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrStatement)
	}
	switch {
	case j.Epoch == nil:
		return nil, fmt.Errorf("%w: no \"epoch\"", ErrStatement)
	case len(j.Signers) == 0:
		return nil, fmt.Errorf("%w: no \"signers\"", ErrStatement)
	}
	in := &Input{Epoch: uint32(*j.Epoch), Signers: make([]Signer, len(j.Signers))}
	if err := decodeHex(in.Message[:], j.Message, "message"); err != nil {
		return nil, err
	}
	for i, s := range j.Signers {
		var pk [xmss.PublicKeySize]byte
		var sig [xmss.SignatureSize]byte
		if err := decodeHex(pk[:], s.PublicKey, fmt.Sprintf("signers[%d].public_key", i)); err != nil {
			return nil, err
		}
		if err := decodeHex(sig[:], s.Signature, fmt.Sprintf("signers[%d].signature", i)); err != nil {
			return nil, err
		}
		var err error
		if in.Signers[i].PublicKey, err = xmss.ParsePublicKey(pk[:]); err != nil {
			return nil, fmt.Errorf("%w: signers[%d].public_key: %v", ErrStatement, i, err)
		}
		if in.Signers[i].Signature, err = xmss.ParseSignature(sig[:]); err != nil {
			return nil, fmt.Errorf("%w: signers[%d].signature: %v", ErrStatement, i, err)
		}
	}
	if err := checkDistinct(in.PublicKeys()); err != nil {
		return nil, err
	}
	return in, nil
}

// Invalid is one signature that does not verify: its index and xmss.Verify's reason.
type Invalid struct {
	Index int
	Err   error
}

func (v Invalid) Error() string { return fmt.Sprintf("signature %d: %v", v.Index, v.Err) }

// InvalidSignatures is Check's error: the signatures that do not verify, of Of.
type InvalidSignatures struct {
	Bad []Invalid
	Of  int
}

func (e *InvalidSignatures) Error() string {
	if len(e.Bad) == 1 {
		return fmt.Sprintf("signature %d invalid: %v", e.Bad[0].Index, e.Bad[0].Err)
	}
	msgs := make([]string, len(e.Bad))
	for i, b := range e.Bad {
		msgs[i] = fmt.Sprintf("signature %d invalid: %v", b.Index, b.Err)
	}
	return fmt.Sprintf("%d of %d signatures invalid: %s", len(e.Bad), e.Of, strings.Join(msgs, "; "))
}

// Check verifies every signature natively before any proving (flows.CheckInput):
// an *InvalidSignatures naming each one that fails, or nil.
func (in *Input) Check() error { return in.CheckOn(par.Serial()) }

// CheckOn is Check with the signatures verified on the workers (the result does
// not depend on them; once they are stopped it is workers.Err()).
func (in *Input) CheckOn(workers par.Workers) error {
	bad := in.InvalidOn(workers)
	if err := workers.Err(); err != nil {
		return err
	}
	if len(bad) > 0 {
		return &InvalidSignatures{Bad: bad, Of: in.Len()}
	}
	return nil
}

// Invalid verifies every signature natively (xmss.Verify) and returns those that
// fail, in index order (nil when all verify).
func (in *Input) Invalid() []Invalid { return in.InvalidOn(par.Serial()) }

// InvalidOn is Invalid with the signatures verified on the workers.
func (in *Input) InvalidOn(workers par.Workers) []Invalid {
	errs := make([]error, len(in.Signers))
	workers.Range(len(in.Signers), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := &in.Signers[i]
			errs[i] = xmss.Verify(s.PublicKey, in.Epoch, in.Message, &s.Signature)
		}
	}, par.PerWorker(16))
	var bad []Invalid
	for i, err := range errs {
		if err != nil {
			bad = append(bad, Invalid{Index: i, Err: err})
		}
	}
	return bad
}

// statementLabel frames the statement's bytes in the transcript.
const statementLabel = "xmss-aggregate/statement/v0"

// AbsorbBytes is the byte string the transcript absorbs after the flow's label:
// statementLabel ‖ message (32) ‖ LE32(epoch) ‖ LE64(key count) ‖ each key's 32
// bytes (root ‖ P) in order.
func (a Aggregate) AbsorbBytes() []byte {
	b := make([]byte, 0, len(statementLabel)+xmss.MessageLen+12+xmss.PublicKeySize*len(a.PublicKeys))
	b = append(b, statementLabel...)
	b = append(b, a.Message[:]...)
	b = binary.LittleEndian.AppendUint32(b, a.Epoch)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(a.PublicKeys)))
	for _, pk := range a.PublicKeys {
		k := pk.Bytes()
		b = append(b, k[:]...)
	}
	return b
}

// Public-input window: the lincheck's public term pins the columns
// [PBase, PBase + 2^PublicLog) of every block that the statement decides (P, the
// message, the epoch, the root and the asserted zeros; the window's other columns are
// not pinned).
const PublicLog = 11

// PublicWindow is the public term's window.
func PublicWindow() lincheck.Window {
	w := lincheck.Window{Offset: PBase, Log: PublicLog, Mask: make([]uint64, (1<<PublicLog)/64)}
	for _, col := range pinnedColumns() {
		j := col - PBase
		w.Mask[j/64] |= 1 << (j % 64)
	}
	return w
}

// pinnedColumns are the columns Statement.Pinned lists (any statement's).
func pinnedColumns() []int {
	cols, _ := Statement{}.Pinned()
	return cols
}

// PublicTable is the public term's table for a: row s holds block s's pinned
// values (Statement.Pinned) at column − PBase; padding slots repeat row 0. The
// pinned regions start on 64-column boundaries of the window and hold their bytes
// in little-endian bit order, so each row is written a word at a time
// (TestPublicTableMatchesPinned holds it to Pinned).
func (a Aggregate) PublicTable() *lincheck.Table {
	const words = (1 << PublicLog) / 64
	t := &lincheck.Table{W: PublicWindow(), Rows: make([][]uint64, len(a.PublicKeys))}
	rows := make([]uint64, words*len(a.PublicKeys))
	var msg [(EpochBase - MsgBase) / 64]uint64
	putWords(msg[:], 0, a.Message[:])
	for s, pk := range a.PublicKeys {
		row := rows[s*words : (s+1)*words : (s+1)*words]
		putWords(row, 0, pk.P[:])
		copy(row[(MsgBase-PBase)/64:], msg[:])
		row[(EpochBase-PBase)/64] = uint64(a.Epoch)
		putWords(row, RootBase-PBase, pk.Root[:])
		t.Rows[s] = row
	}
	return t
}

// putWords writes the bytes b, bit i of b (byte i/8, bit i%8) at bit j0+i of the
// words, j0 a multiple of 64 and len(b) of 8.
func putWords(words []uint64, j0 int, b []byte) {
	for i := 0; i < len(b); i += 8 {
		words[j0/64+i/8] = binary.LittleEndian.Uint64(b[i:])
	}
}
