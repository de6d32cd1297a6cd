package keccak

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/leanpipe/leanpipe/flows"
)

// StatesSuffix names the states file beside a keccak-batch proof: PROOF.states
// holds the states string, and PROOF.json the permutation count.
const StatesSuffix = ".states"

func init() {
	flows.RegisterSidecar(FlowName, flows.Sidecar{Suffix: StatesSuffix, Split: SplitStatement, Join: JoinStatement})
}

type countJSON struct {
	Permutations int `json:"permutations"`
}

// SplitStatement splits a statement's data into what PROOF.json keeps,
// {"permutations": N}, and the states string (PROOF.states).
func SplitStatement(data json.RawMessage) (json.RawMessage, []byte, error) {
	var s Statement
	if err := s.UnmarshalJSON(data); err != nil {
		return nil, nil, err
	}
	kept, _ := json.Marshal(countJSON{Permutations: s.Permutations})
	return kept, s.States, nil
}

// JoinStatement is SplitStatement's inverse: PROOF.json's {"permutations": N} and
// the states string give the statement's data. A states string of the wrong
// length for N is an error.
func JoinStatement(data json.RawMessage, states []byte) (json.RawMessage, error) {
	var c countJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStates, err)
	}
	if c.Permutations < 1 || len(states) != c.Permutations*PairSize {
		return nil, fmt.Errorf("%w: %d bytes of states for %d permutations (want %d each)", ErrStates, len(states), c.Permutations, PairSize)
	}
	return Statement{Permutations: c.Permutations, States: states}.MarshalJSON()
}
