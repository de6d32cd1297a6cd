package recursion

import (
	"encoding/json"
	"fmt"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
)

// A merged proof is a kind of xmss-aggregate proof file (flows.ProofKind): any program
// that imports this package gets merged proofs checked by flows.CheckMeta and
// verified by flows.VerifyBytes, as a leaf's are.

func init() {
	registerMergeKind("merged", MergeLabel, IsMergedProof, StatementOf, func(data []byte, ms MergeStatement) (int, func() error, error) {
		m, err := ParseMerged(data, ms)
		if err != nil {
			return 0, nil, err
		}
		return m.LogInvRate, m.Verify, nil
	})
}

// registerMergeKind registers a merged proof file kind: its name, label, magic test,
// statement reader, and parser (the file's rate and its verification).
func registerMergeKind(name, label string, is func([]byte) bool, read func(flows.Statement) (MergeStatement, error),
	parse func(data []byte, ms MergeStatement) (int, func() error, error)) {
	flows.RegisterProofKind(flows.ProofKind{
		Name: name, Flow: aggregate.FlowName, Label: label, Is: is,
		CheckStatement: func(st flows.Statement) error {
			_, err := read(st)
			return err
		},
		Verify: func(data []byte, st flows.Statement) error {
			ms, err := read(st)
			if err != nil {
				return err
			}
			rate, verify, err := parse(data, ms)
			if err != nil {
				return err
			}
			if rate != st.LogInvRate {
				return fmt.Errorf("%w: the file is at log_inv_rate %d, the statement says %d", ErrMerged, rate, st.LogInvRate)
			}
			return verify()
		},
	})
}

// StatementOf reads a merged proof's PROOF.json statement: its data as a
// MergeStatement (strictly), n its key count, a rate in 1..4, depth 1 (merges of
// merged proofs are not verified by this version).
func StatementOf(st flows.Statement) (MergeStatement, error) {
	return readMergeStatement(st, true)
}

// readMergeStatement reads a merged statement, of depth 1 only if leavesOnly.
func readMergeStatement(st flows.Statement, leavesOnly bool) (MergeStatement, error) {
	var ms MergeStatement
	if st.Flow != aggregate.FlowName {
		return ms, fmt.Errorf("%w: a merged proof proves an %s statement, not %s", ErrMergeInput, aggregate.FlowName, st.Flow)
	}
	if err := json.Unmarshal(st.Data, &ms); err != nil {
		return ms, err
	}
	if len(ms.Keys) != st.N {
		return ms, fmt.Errorf("%w: n = %d but %d public keys", ErrMergeInput, st.N, len(ms.Keys))
	}
	if st.LogInvRate < 1 || st.LogInvRate > 4 {
		return ms, fmt.Errorf("%w: log_inv_rate %d, want 1..4", ErrMergeInput, st.LogInvRate)
	}
	if leavesOnly && ms.Depth != 1 {
		return ms, fmt.Errorf("%w: a merged proof of depth %d: merges of merged proofs are no-reveal merges (label %q)", ErrMergeInput, ms.Depth, MergeLabelNR)
	}
	return ms, nil
}
