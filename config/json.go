package config

import (
	"encoding/json"
	"fmt"
)

// budgetJSON is a memory_budget as JSON: "auto" for AutoBudget, else the bytes
// (0 = none).
func budgetJSON(b int64) any {
	if b == AutoBudget {
		return "auto"
	}
	return b
}

// MarshalJSON writes the run as its YAML keys, with memory_budget "auto" (not the
// AutoBudget sentinel) when it is derived from the machine.
func (r Run) MarshalJSON() ([]byte, error) {
	type plain Run
	return json.Marshal(struct {
		plain
		MemoryBudget any `json:"memory_budget"`
	}{plain(r), budgetJSON(r.MemoryBudget)})
}

// MarshalJSON writes the stream section as its YAML keys, with memory_budget "auto"
// when it is the run's.
func (s Stream) MarshalJSON() ([]byte, error) {
	type plain Stream
	return json.Marshal(struct {
		plain
		MemoryBudget any `json:"memory_budget"`
	}{plain(s), budgetJSON(s.MemoryBudget)})
}

// parseBudgetJSON reads a memory_budget written by budgetJSON ("auto" or bytes).
func parseBudgetJSON(raw json.RawMessage, dst *int64) error {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s != "auto" {
			return fmt.Errorf("%w: memory_budget: %q, want \"auto\" or a byte count", ErrInvalid, s)
		}
		*dst = AutoBudget
		return nil
	}
	return json.Unmarshal(raw, dst)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Run) UnmarshalJSON(b []byte) error {
	type plain Run
	aux := struct {
		*plain
		MemoryBudget json.RawMessage `json:"memory_budget"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	return parseBudgetJSON(aux.MemoryBudget, &r.MemoryBudget)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Stream) UnmarshalJSON(b []byte) error {
	type plain Stream
	aux := struct {
		*plain
		MemoryBudget json.RawMessage `json:"memory_budget"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	return parseBudgetJSON(aux.MemoryBudget, &s.MemoryBudget)
}
