package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/spf13/cobra"
)

func addCommands(root *cobra.Command) {
	root.PersistentFlags().String("log-level", "info", "log level: debug, info, warn, error")
	root.AddCommand(proveCmd(), verifyCmd(), runCmd(), benchCmd(), serveCmd())
}

func checkFormat(f string) error {
	if f != "wire" && f != "raw" {
		return usage("--format: want wire or raw, got %q", f)
	}
	return nil
}

// encodeProof serialises a proof in the chosen form.
func encodeProof(p *transcript.Proof, format string) []byte {
	if format == "raw" {
		return p.MarshalRaw()
	}
	return p.MarshalWire()
}

// writeProof writes PROOF and PROOF.json atomically.
func writeProof(path string, p *transcript.Proof, meta flows.Meta) error {
	if err := atomicfile.Write(path, encodeProof(p, meta.Format)); err != nil {
		return err
	}
	mb, _ := json.MarshalIndent(meta, "", "  ")
	return atomicfile.Write(path+".json", append(mb, '\n'))
}

func proveCmd() *cobra.Command {
	var (
		blocksPath, out, format string
		n, rate, workers        int
		seed                    uint64
	)
	cmd := &cobra.Command{
		Use:   "prove (--blocks FILE | --n N --seed S) --out PROOF",
		Short: "prove a batch of BLAKE2s compressions; writes PROOF in the reference's bytes and PROOF.json",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := newLogger(cmd)
			if err := checkFormat(format); err != nil {
				return err
			}
			if out == "" {
				return usage("--out is required")
			}
			var blocks []witness.Compression
			switch {
			case blocksPath != "" && cmd.Flags().Changed("n"):
				return usage("give --blocks or --n, not both")
			case blocksPath != "":
				data, err := os.ReadFile(blocksPath)
				if err != nil {
					return usage("--blocks: %v", err)
				}
				if blocks, err = witness.DecodeBlocks(data); err != nil {
					return usage("--blocks %s: %v", blocksPath, err)
				}
			case cmd.Flags().Changed("n"):
				if n < 1 || n > flows.MaxBatch {
					return usage("--n: %d is out of range [1, %d]", n, flows.MaxBatch)
				}
				blocks = flows.Generate(n, seed)
			default:
				return usage("give --blocks FILE or --n N")
			}
			if _, err := flows.BatchShape(len(blocks), rate); err != nil {
				return usage("%v", err)
			}
			e, err := flows.NewEngine(flows.EngineOptions{Cores: workers})
			if err != nil {
				return err
			}
			defer e.Close()
			log.Info().Int("n", len(blocks)).Int("log_inv_rate", rate).Int("cores", e.Scheduler().Cores()).Msg("proving")
			res, err := e.Prove(context.Background(), flows.Request{Blocks: blocks, LogInvRate: rate})
			if err != nil {
				return err
			}
			meta := flows.NewMeta(len(blocks), rate, format)
			if err := writeProof(out, res.Proof, meta); err != nil {
				return err
			}
			printSpans(cmd.ErrOrStderr(), fmt.Sprintf("%d compressions (2^%d slots)", len(blocks), res.Shape.NLog), res.Spans)
			log.Info().Str("proof", out).Dur("wall", res.Wall).Msg("proved")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&blocksPath, "blocks", "", "compressions in the reference-proofs blocks layout (112 bytes each)")
	f.IntVar(&n, "n", 0, "prove N generated pinned compressions instead of --blocks")
	f.Uint64Var(&seed, "seed", 1, "seed of the generated compressions (with --n)")
	f.StringVar(&out, "out", "", "proof file to write (PROOF.json is written beside it)")
	f.StringVar(&format, "format", "wire", "proof form: wire (the reference prover's) or raw (one path per query)")
	f.IntVar(&rate, "log-inv-rate", 1, "WHIR level-0 log inverse rate (1..4; 1 is the reference's)")
	f.IntVar(&workers, "workers", 0, "cores to use (0 = all)")
	return cmd
}

func verifyCmd() *cobra.Command {
	var (
		n, rate        int
		format, rawOut string
	)
	cmd := &cobra.Command{
		Use:   "verify PROOF",
		Short: "verify a batch proof; prints accepted or rejected: <reason>",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			data, err := os.ReadFile(path)
			if err != nil {
				return usage("%v", err)
			}
			meta := flows.Meta{Flow: flows.Name, N: n, LogInvRate: rate, Label: flows.Label, Format: format}
			if mb, err := os.ReadFile(path + ".json"); err == nil {
				if meta, err = flows.ParseMeta(mb); err != nil {
					return usage("%s.json: %v", path, err)
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
			} else if !cmd.Flags().Changed("n") {
				return usage("no %s.json beside the proof: give --n", path)
			}
			if meta.Format != "" {
				if err := checkFormat(meta.Format); err != nil {
					return err
				}
			}
			if _, err := flows.BatchShape(meta.N, meta.LogInvRate); err != nil {
				return usage("%v", err)
			}
			raw, err := verifyProof(data, meta)
			if err != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "rejected: %v\n", err)
				return errRejected
			}
			if rawOut != "" {
				if err := atomicfile.Write(rawOut, raw.MarshalRaw()); err != nil {
					return err
				}
			}
			fmt.Fprintln(cmd.OutOrStdout(), "accepted")
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&n, "n", 0, "number of compressions (the statement) when there is no PROOF.json")
	f.StringVar(&format, "format", "", "proof form: wire or raw (default: from PROOF.json, else detected)")
	f.IntVar(&rate, "log-inv-rate", 1, "WHIR level-0 log inverse rate when there is no PROOF.json")
	f.StringVar(&rawOut, "raw-out", "", "also write the accepted proof in raw form (one Merkle path per query) to this file")
	return cmd
}

// verifyBytes decodes a proof in meta.Format (both forms when empty) and verifies it.
func verifyBytes(data []byte, meta flows.Meta) error {
	_, err := verifyProof(data, meta)
	return err
}

// verifyProof is verifyBytes returning the raw form of the accepted proof.
func verifyProof(data []byte, meta flows.Meta) (*transcript.Proof, error) {
	forms := []string{meta.Format}
	if meta.Format == "" {
		forms = []string{"wire", "raw"}
	}
	var firstErr error
	for _, f := range forms {
		var p transcript.Proof
		var err error
		if f == "raw" {
			err = p.UnmarshalRaw(data)
		} else {
			err = p.UnmarshalWire(data)
		}
		var raw *transcript.Proof
		if err == nil {
			raw, err = flows.VerifyBatchRaw(&p, meta.N, meta.LogInvRate)
		}
		if err == nil {
			return raw, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}
