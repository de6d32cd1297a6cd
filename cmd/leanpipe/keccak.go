package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/keccak"
)

// The keccak-batch flow on the command line: `prove --states FILE` (N × 200 bytes
// of input states) or `--flow keccak-batch --n N --seed S`. Its statement is
// written through the flow's sidecar (flows.WriteProof): the states string (per
// permutation its input state, then its output state, 400 bytes) as PROOF.states,
// and PROOF.json names the flow, n (blocks) and permutations (N) without the
// states; `verify PROOF` reads the three together.

const statesSuffix = keccak.StatesSuffix

func addStatesFlag(cmd *cobra.Command) {
	cmd.Flags().String("states", "", "the "+keccak.FlowName+" flow's input: a file of N × 200 bytes of input states (FIPS 202 state strings); implies --flow "+keccak.FlowName)
}

// statesInput applies --states FILE: the keccak-batch flow's input file, so it picks
// that flow (another --flow is a usage error) and is the input path.
func statesInput(cmd *cobra.Command, flowName, inputPath *string) error {
	path, _ := cmd.Flags().GetString("states")
	if path == "" {
		return nil
	}
	if cmd.Flags().Changed("flow") && *flowName != keccak.FlowName {
		return usage("--states is the %s flow's input; give --input for %s", keccak.FlowName, *flowName)
	}
	if *inputPath != "" {
		return usage("give --input or --states, not both")
	}
	*flowName, *inputPath = keccak.FlowName, path
	return nil
}

// checkStatesOut refuses, before any work, a keccak-batch proof path whose states
// file cannot be written.
func checkStatesOut(fl flows.Flow, out string) error {
	if fl.Name() != keccak.FlowName {
		return nil
	}
	if err := atomicfile.Check(out + statesSuffix); err != nil {
		return usage("--out %s: %v", out, err)
	}
	return nil
}

// readMeta parses PROOF.json (a usage error naming it when malformed); for a
// keccak-batch proof it completes the statement with PROOF.states first. A missing
// states file is a usage error; one of the wrong length, or counts in PROOF.json
// that disagree, are a rejection (printed to out, errRejected).
func readMeta(out io.Writer, path string, mb []byte) (flows.Meta, error) {
	var meta flows.Meta
	if err := flows.CheckJSONKeys(mb); err != nil {
		return flows.Meta{}, usage("%s.json: %v", path, err)
	}
	if err := json.Unmarshal(mb, &meta); err != nil || meta.Flow != keccak.FlowName {
		m, err := flows.ParseMeta(mb)
		if err != nil {
			return flows.Meta{}, usage("%s.json: %v", path, err)
		}
		return m, nil
	}
	var count struct {
		Permutations *int `json:"permutations"`
	}
	if err := json.Unmarshal(meta.Statement, &count); err != nil || count.Permutations == nil || *count.Permutations < 1 {
		return flows.Meta{}, usage("%s.json: a %s proof's metadata needs \"permutations\" ≥ 1", path, keccak.FlowName)
	}
	n := *count.Permutations
	if blocks := (n + keccak.FlowLayout.Perms - 1) / keccak.FlowLayout.Perms; meta.N != blocks {
		fmt.Fprintf(out, "rejected: %s.json: n = %d blocks, but %d permutations fill %d\nchecked: flow %s, the metadata's counts\n",
			path, meta.N, n, blocks, keccak.FlowName)
		return flows.Meta{}, errRejected
	}
	states, err := os.ReadFile(path + statesSuffix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return flows.Meta{}, usage("no %s%s beside the proof (a %s proof is checked against its states)", path, statesSuffix, keccak.FlowName)
	case err != nil:
		return flows.Meta{}, usage("%v", err)
	case len(states) != n*keccak.PairSize:
		fmt.Fprintf(out, "rejected: %s%s holds %d bytes, want %d (%d permutations × %d)\nchecked: flow %s, the states file's length\n",
			path, statesSuffix, len(states), n*keccak.PairSize, n, keccak.PairSize, keccak.FlowName)
		return flows.Meta{}, errRejected
	}
	if meta.Statement, err = keccak.JoinStatement(meta.Statement, states); err != nil {
		return flows.Meta{}, usage("%s.json: %v", path, err)
	}
	if err := flows.CheckMeta(meta); err != nil {
		return flows.Meta{}, usage("%s.json: %v", path, err)
	}
	return meta, nil
}

// benchCount is the number of the flow's own units an input proves: permutations
// for keccak-batch, its instances otherwise.
func benchCount(in flows.Input) int {
	if b, ok := in.(keccak.Batch); ok {
		return b.Permutations()
	}
	return in.Len()
}

// generatedInstances is the Flock instance count of n of the flow's generated units
// (Flow.Generate's n: keccak-batch packs several permutations per block), what the
// flow's Check and Estimate take.
func generatedInstances(fl flows.Flow, n int) int {
	if fl.Name() == keccak.FlowName {
		return (n + keccak.FlowLayout.Perms - 1) / keccak.FlowLayout.Perms
	}
	return n
}
