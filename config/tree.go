package config

import (
	"fmt"

	"github.com/leanpipe/leanpipe/aggregate"
	"go.yaml.in/yaml/v3"
)

// Tree is a run's `tree:` section: one signature set (the input file, or one
// generated set of `signers` on one message and epoch) cut in order into leaves of
// Leaf signers (the last may be smaller), proved, and merged into one proof at
// LogInvRate (the leaves are proved at the run's log_inv_rate).
type Tree struct {
	Leaf       int `json:"leaf"`
	LogInvRate int `json:"log_inv_rate"`
}

// DefaultTreeRate (0) leaves a tree's merge rate to the merge (recursion.DefaultRate
// of its leaf count) unless tree.log_inv_rate says otherwise.
const DefaultTreeRate = 0

func parseTree(m *yaml.Node) (*Tree, error) {
	if m.Kind != yaml.MappingNode {
		return nil, errAt(m, "tree", "want a mapping such as {leaf: 256}, got %s", describe(m))
	}
	t := &Tree{LogInvRate: DefaultTreeRate}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := "tree." + k.Value
		if seen[k.Value] {
			return nil, errAt(k, key, "key given twice")
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "leaf":
			t.Leaf, err = intIn(v, key, 1, aggregate.MaxSigners)
		case "log_inv_rate":
			t.LogInvRate, err = intIn(v, key, 1, 4)
		default:
			err = errAt(k, key, "unknown key (known: leaf, log_inv_rate)")
		}
		if err != nil {
			return nil, err
		}
	}
	if !seen["leaf"] {
		return nil, errAt(m, "tree", "give leaf: the signers per leaf")
	}
	return t, nil
}

// checkTree checks a tree run's other keys: the xmss-aggregate flow, one signature
// set (signers, or input), no leaves (the set and the leaf size give them) and no
// stream.
func checkTree(r Run, seen map[string]bool, tree *yaml.Node) error {
	switch {
	case r.Flow != aggregate.FlowName:
		return errAt(tree, "tree", "merges %s proofs; the flow is %s", aggregate.FlowName, r.Flow)
	case seen["leaves"]:
		return errAt(tree, "tree", "leaves: not used with tree (the signers and tree.leaf give the leaves)")
	case r.Stream != nil:
		return errAt(tree, "tree", "not used with stream")
	case seen["batch"]:
		return errAt(tree, "tree", "batch: with tree, give signers (the whole set's size)")
	}
	if !seen["signers"] && r.Input == "" {
		return errAt(tree, "tree", "give signers (the set's size) or input (a signatures file)")
	}
	if seen["signers"] && r.Input != "" {
		return fmt.Errorf("%w: signers and input: with tree, give one signature set", ErrInvalid)
	}
	return nil
}
