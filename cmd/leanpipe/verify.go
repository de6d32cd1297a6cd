package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
)

func verifyCmd() *cobra.Command {
	var (
		n, rate                  int
		flowName, format, rawOut string
		showKeys                 bool
	)
	cmd := &cobra.Command{
		Use:   "verify PROOF",
		Short: "verify a proof; prints accepted or rejected: <reason>, then the statement checked",
		Long: `verify checks PROOF against its statement (from PROOF.json when present, else from
--flow, --n and --log-inv-rate) and prints "accepted" or "rejected: <reason>" on the first
line and, on the second, what was checked: the flow, the slot count 2^k, the rate and the
proof form (detected when neither PROOF.json nor --format gives it).

For an xmss-aggregate proof a third line gives the number of public keys and
"keys sha256:<hex>", the SHA-256 of the 32-byte keys concatenated in statement order;
--show-keys lists them. A PROOF.json that gives a field twice, or in two letter cases, is
refused (exit status 2).

The protocol binds the slot count 2^k = 2^max(3, ⌈log2 N⌉), not N: any N of the same power
of two verifies the same proof (that is the reference's statement).`,
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
			fl, err := lookupFlow(flowName)
			if err != nil {
				return err
			}
			meta := flows.Meta{Flow: fl.Name(), N: n, LogInvRate: rate, Label: fl.Label(), Format: format}
			if mb, err := os.ReadFile(path + ".json"); err == nil {
				if meta, err = flows.ParseMeta(mb); err != nil {
					return usage("%s.json: %v", path, err)
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
			} else if !cmd.Flags().Changed("n") {
				return usage("no %s.json beside the proof: give --n", path)
			}
			if meta.Format != "" {
				if err := checkFormat(meta.Format); err != nil {
					return err
				}
			}
			if err := fl.Check(meta.N, meta.LogInvRate); err != nil {
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
			checked := fmt.Sprintf("checked: %s, %s", flows.DescribeStatement(fl, meta.Proves()), formNote)
			if err != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "rejected: %v\n%s\n", err, checked)
				printKeys(cmd.OutOrStdout(), meta, showKeys)
				return errRejected
			}
			if rawOut != "" {
				if err := atomicfile.Write(rawOut, raw.MarshalRaw()); err != nil {
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
	f.IntVar(&n, "n", 0, "number of instances (the statement) when there is no PROOF.json")
	f.StringVar(&format, "format", "", "proof form: wire or raw (default: from PROOF.json, else detected)")
	f.IntVar(&rate, "log-inv-rate", 1, "WHIR level-0 log inverse rate when there is no PROOF.json")
	f.BoolVar(&showKeys, "show-keys", false, "for an aggregate, also list the public keys checked, one a line in statement order")
	f.StringVar(&rawOut, "raw-out", "", "also write the accepted proof in raw form (one Merkle path per query) to this file")
	return cmd
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
	fmt.Fprintf(w, "keys: %d, keys sha256:%x\n", len(ag.PublicKeys), keysDigest(ag))
	if all {
		for i, pk := range ag.PublicKeys {
			fmt.Fprintf(w, "key %d: %s\n", i, pk)
		}
	}
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
