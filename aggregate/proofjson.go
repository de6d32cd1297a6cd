package aggregate

import (
	"encoding/json"
	"fmt"
)

// proofJSON is what Aggregate.UnmarshalJSON reads: the statement's fields and,
// optionally, the other fields of a PROOF.json (flows.Meta's own), so that a
// PROOF.json of this flow decodes into its Aggregate.
type proofJSON struct {
	aggregateJSON
	Flow       *string         `json:"flow"`
	N          *int            `json:"n"`
	Label      *string         `json:"label"`
	LogInvRate json.RawMessage `json:"log_inv_rate"`
	Format     json.RawMessage `json:"format"`
}

// check refuses a PROOF.json of another flow or label, or whose n is not its key
// count.
func (p proofJSON) check(keys int) error {
	switch {
	case p.Flow != nil && *p.Flow != FlowName:
		return fmt.Errorf("%w: flow %q, want %s", ErrStatement, *p.Flow, FlowName)
	case p.Label != nil && *p.Label != FlowLabel:
		return fmt.Errorf("%w: label %q, want %s", ErrStatement, *p.Label, FlowLabel)
	case p.N != nil && *p.N != keys:
		return fmt.Errorf("%w: n = %d but %d public keys", ErrStatement, *p.N, keys)
	}
	return nil
}
