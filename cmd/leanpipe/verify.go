package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/recursion"
)

func verifyCmd() *cobra.Command {
	var (
		n, rate                          int
		flowName, format, rawOut, stPath string
		showKeys                         bool
	)
	cmd := &cobra.Command{
		Use:   "verify PROOF [--statement FILE]",
		Short: "verify a proof; prints accepted or rejected: <reason>, then the statement checked",
		Long: `verify checks PROOF against its statement and prints "accepted" or "rejected: <reason>"
on the first line and, on the second, what was checked: the flow, the statement, the rate and
the proof form (detected when neither PROOF.json nor --format gives it).

The statement comes from, in this order:
  --statement FILE   an xmss-aggregate statement: a signatures file (its message, epoch and
                     public keys; its signatures are ignored) or a statement JSON
                     {"message": "<64 hex>", "epoch": E, "public_keys": ["<64 hex>", …]};
                     it implies --flow xmss-aggregate, PROOF.json is not read, the rate is
                     1 unless --log-inv-rate says otherwise and the form is detected
  PROOF.json         beside the proof (written by prove, serve and submit --fetch)
  --flow, --n        and --log-inv-rate, for a flow whose statement is only its size
A proof that is well formed but does not prove that statement is rejected with "the proof
does not match this statement" (exit status 1); a missing or malformed statement is an input
error (exit status 2).

What N binds, per flow:
  blake2s-batch    the slot count 2^k = 2^max(3, ⌈log2 N⌉), not N: any N of the same power
                   of two verifies the same proof (that is the reference's statement); the
                   compressions themselves are not part of the statement
  xmss-aggregate   N is the number of public keys; the statement binds the message, the
                   epoch and every key in order, so N is exact

For an xmss-aggregate proof a third line gives the number of public keys and
"keys sha256:<hex>", the SHA-256 of the 32-byte keys concatenated in statement order;
--show-keys lists them.

A merged xmss-aggregate proof (prove --child; its file starts with "LPMERGE1") is
verified against its PROOF.json, which records the children: the output says "merged
from K children" with their sizes and rates, then the keys line. A no-reveal merged
proof (prove --child … --nestable) prints its depth in the tree. A PROOF.json that gives a field twice, or in two letter cases, is
refused (exit status 2). --raw-out writes the accepted proof in raw form with its own
sidecar (FILE.json).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if rawOut != "" {
				if err := checkOutFile("--raw-out", rawOut); err != nil {
					return err
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return usage("%v", err)
			}
			if recursion.IsMergedProof(data) || recursion.IsMergedNRProof(data) {
				return verifyMergedFile(cmd, path, data, showKeys)
			}
			fl, err := lookupFlow(flowName)
			if err != nil {
				return err
			}
			meta := flows.Meta{Flow: fl.Name(), N: n, LogInvRate: rate, Label: fl.Label(), Format: format}
			source := ""
			if stPath != "" {
				if cmd.Flags().Changed("flow") && fl.Name() != aggregate.FlowName {
					return usage("--statement gives an %s statement; --flow %s has none (give --n)", aggregate.FlowName, fl.Name())
				}
				ag, err := readStatement(stPath)
				if err != nil {
					return err
				}
				if cmd.Flags().Changed("n") && n != len(ag.PublicKeys) {
					return usage("--n %d disagrees with --statement %s (%d public keys)", n, stPath, len(ag.PublicKeys))
				}
				st, _ := json.Marshal(ag)
				fl = aggregate.Flow
				meta = flows.Meta{Flow: fl.Name(), N: len(ag.PublicKeys), LogInvRate: rate, Label: fl.Label(), Format: format, Statement: st}
				source = "statement from " + stPath + "; "
			} else if mb, err := os.ReadFile(path + ".json"); err == nil {
				if meta, err = readMeta(cmd.OutOrStdout(), path, mb); err != nil {
					return err
				}
				if cmd.Flags().Changed("flow") && fl.Name() != meta.Flow {
					return usage("--flow %s disagrees with %s.json (flow %s)", fl.Name(), path, meta.Flow)
				}
				if cmd.Flags().Changed("n") && n != meta.N {
					return usage("--n %d disagrees with %s.json (n = %d)", n, path, meta.N)
				}
				if cmd.Flags().Changed("format") && format != meta.Format {
					return usage("--format %s disagrees with %s.json (%s)", format, path, meta.Format)
				}
				if cmd.Flags().Changed("log-inv-rate") && rate != meta.LogInvRate {
					return usage("--log-inv-rate %d disagrees with %s.json (%d)", rate, path, meta.LogInvRate)
				}
				if fl, err = lookupFlow(meta.Flow); err != nil {
					return err
				}
				if _, ok := flows.ProofKindOfMeta(meta); ok {
					return verifyMergedFile(cmd, path, data, showKeys)
				}
			} else if fl.Name() == aggregate.FlowName {
				return usage("no %s.json beside the proof: give --statement FILE (a signatures file, or {\"message\",\"epoch\",\"public_keys\"})", path)
			} else if !cmd.Flags().Changed("n") {
				return usage("no %s.json beside the proof: give --n N (the instance count), or --statement FILE for an %s proof", path, aggregate.FlowName)
			}
			if meta.Format != "" {
				if err := checkFormat(meta.Format); err != nil {
					return err
				}
			}
			if err := fl.Check(meta.N, meta.LogInvRate); err != nil {
				return usage("%v", err)
			}
			if err := flows.CheckStatement(fl, meta.Proves()); err != nil {
				return usage("%v", err)
			}
			raw, form, err := flows.VerifyBytesForm(data, meta)
			formNote := form + " form"
			switch {
			case form == "":
				formNote = "form not detected"
			case meta.Format == "":
				formNote += " (detected)"
			}
			checked := fmt.Sprintf("checked: %s%s, %s", source, flows.DescribeStatement(fl, meta.Proves()), formNote)
			if err != nil {
				reason := err.Error()
				if form != "" {
					reason = "the proof does not match this statement (" + reason + ")"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "rejected: %s\n%s\n", reason, checked)
				printKeys(cmd.OutOrStdout(), meta, showKeys)
				return errRejected
			}
			if rawOut != "" {
				rm := meta
				rm.Format = flows.FormatRaw
				if err := flows.WriteProof(rawOut, raw, rm); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "accepted\n%s\n", checked)
			printKeys(cmd.OutOrStdout(), meta, showKeys)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&flowName, "flow", flows.DefaultName, "the proof flow when there is no PROOF.json")
	f.IntVar(&n, "n", 0, "number of instances when there is no PROOF.json (see above for what it binds per flow)")
	f.StringVar(&format, "format", "", "proof form: wire or raw (default: from PROOF.json, else detected)")
	f.IntVar(&rate, "log-inv-rate", 1, "WHIR level-0 log inverse rate when there is no PROOF.json")
	f.StringVar(&stPath, "statement", "", "verify against the xmss-aggregate statement in FILE (a signatures file or {message, epoch, public_keys}) instead of PROOF.json")
	f.BoolVar(&showKeys, "show-keys", false, "for an aggregate, also list the public keys checked, one a line in statement order")
	f.StringVar(&rawOut, "raw-out", "", "also write the accepted proof in raw form (one Merkle path per query) to this file, with its sidecar FILE.json")
	return cmd
}

// readStatement reads an xmss-aggregate statement for verify --statement: a
// signatures file (its signers' public keys; the signatures are not read) or a
// statement JSON {"message", "epoch", "public_keys"}. Errors are usage errors naming
// the file and the field.
func readStatement(path string) (aggregate.Aggregate, error) {
	st, err := os.Stat(path)
	if err != nil {
		return aggregate.Aggregate{}, usage("--statement: %v", err)
	}
	if !st.Mode().IsRegular() || st.Size() > maxSignaturesFile {
		return aggregate.Aggregate{}, usage("--statement %s: not a regular file of at most %d bytes", path, maxSignaturesFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return aggregate.Aggregate{}, usage("--statement: %v", err)
	}
	if err := flows.CheckJSONKeys(data); err != nil {
		return aggregate.Aggregate{}, usage("--statement %s: %v", path, err)
	}
	var doc struct {
		Message    json.RawMessage `json:"message"`
		Epoch      json.RawMessage `json:"epoch"`
		PublicKeys json.RawMessage `json:"public_keys"`
		Signers    []struct {
			PublicKey json.RawMessage `json:"public_key"`
			Signature json.RawMessage `json:"signature"`
		} `json:"signers"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return aggregate.Aggregate{}, usage("--statement %s: %v (want a signatures file or {\"message\",\"epoch\",\"public_keys\"})", path, err)
	}
	keys := doc.PublicKeys
	switch {
	case doc.Signers != nil && keys != nil:
		return aggregate.Aggregate{}, usage("--statement %s: give \"public_keys\" or \"signers\", not both", path)
	case doc.Signers != nil:
		list := make([]json.RawMessage, len(doc.Signers))
		for i, s := range doc.Signers {
			if s.PublicKey == nil {
				return aggregate.Aggregate{}, usage("--statement %s: signers[%d] has no \"public_key\"", path, i)
			}
			list[i] = s.PublicKey
		}
		keys, _ = json.Marshal(list)
	case keys == nil:
		return aggregate.Aggregate{}, usage("--statement %s: no \"public_keys\" (or \"signers\")", path)
	}
	if doc.Message == nil {
		return aggregate.Aggregate{}, usage("--statement %s: no \"message\"", path)
	}
	if doc.Epoch == nil {
		return aggregate.Aggregate{}, usage("--statement %s: no \"epoch\"", path)
	}
	norm, _ := json.Marshal(map[string]json.RawMessage{"message": doc.Message, "epoch": doc.Epoch, "public_keys": keys})
	var ag aggregate.Aggregate
	if err := json.Unmarshal(norm, &ag); err != nil {
		return aggregate.Aggregate{}, usage("--statement %s: %v", path, err)
	}
	if len(ag.PublicKeys) == 0 {
		return aggregate.Aggregate{}, usage("--statement %s: no public keys", path)
	}
	return ag, nil
}

// printKeys, for an aggregate's statement, prints the keys checked: their count and
// "keys sha256:<hex>", the SHA-256 of the 32-byte keys concatenated in statement
// order (compare it with the digest of the keys you expect); with all set, each key
// on its own line.
func printKeys(w io.Writer, meta flows.Meta, all bool) {
	if meta.Flow != aggregate.FlowName {
		return
	}
	ag, err := aggregate.StatementOf(meta.Proves())
	if err != nil {
		return
	}
	printAggregateKeys(w, ag, all)
}

// keysDigest is the SHA-256 of an aggregate's 32-byte public keys concatenated in
// statement order.
func keysDigest(ag aggregate.Aggregate) [sha256.Size]byte {
	h := sha256.New()
	for _, pk := range ag.PublicKeys {
		b := pk.Bytes()
		h.Write(b[:])
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}
