package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/spf13/cobra"
)

func addCommands(root *cobra.Command) {
	root.PersistentFlags().String("log-level", "info", "log level: "+strings.Join(logLevels, ", "))
	root.AddCommand(proveCmd(), verifyCmd(), runCmd(), benchCmd(), serveCmd(), submitCmd(), flowsCmd(), xmssCmd())
}

// checkOutFile refuses, before any work, an output file that cannot be written: its
// directory is missing or not writable, or it (or its PROOF.json) is a directory.
func checkOutFile(flag, path string) error {
	for _, p := range []string{path, path + ".json"} {
		if err := atomicfile.Check(p); err != nil {
			return usage("%s %s: %v", flag, path, err)
		}
	}
	return nil
}

// prepareOutDir creates an output directory and checks, before any work, that it is
// writable and that none of the files to be written in it is a directory.
func prepareOutDir(flag, dir string, files ...string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usage("%s %s: not a directory", flag, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usage("%s %s: %v", flag, dir, err)
	}
	if err := atomicfile.CheckDir(dir); err != nil {
		return usage("%s %s: %v", flag, dir, err)
	}
	for _, f := range files {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil && st.IsDir() {
			return usage("%s %s: %s is a directory", flag, dir, f)
		}
	}
	return nil
}

func checkFormat(f string) error {
	if err := flows.CheckFormat(f); err != nil {
		return usage("--format: want wire or raw, got %q", f)
	}
	return nil
}

// lookupFlow resolves a flow name; an unknown one is a usage error listing the
// registered flows.
func lookupFlow(name string) (flows.Flow, error) {
	f, err := flows.Lookup(name)
	if err != nil {
		return nil, usageError{err}
	}
	return f, nil
}

// readInput reads an input file for flow f.
func readInput(f flows.Flow, flag, path string) (flows.Input, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, usage("%s: %v", flag, err)
	}
	if _, err := f.FileN(st.Size()); err != nil {
		return nil, usage("%s %s: %v", flag, path, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usage("%s: %v", flag, err)
	}
	in, err := f.Decode(data)
	if err != nil {
		return nil, usage("%s %s: %v", flag, path, err)
	}
	return in, nil
}

func proveCmd() *cobra.Command {
	var (
		flowName, inputPath, blocksPath, out, format, budget string
		n, rate, workers                                     int
		seed                                                 uint64
		trace                                                *traceFlag
		children                                             []string
	)
	cmd := &cobra.Command{
		Use:   "prove (--input FILE | --blocks FILE | --signatures FILE | --states FILE | --n N --seed S | --child PROOF --child PROOF… [--signatures FILE]) --out PROOF [--flow NAME]",
		Short: "prove a flow's input (by default a batch of BLAKE2s compressions), or merge xmss-aggregate proofs; writes PROOF in the reference's bytes and PROOF.json",
		Long: `prove proves a flow's input and writes PROOF and PROOF.json (its statement).

Merging xmss-aggregate proofs: --child PROOF (repeated, 2 to 8 in all) merges leaf
proofs, each with its PROOF.json beside it as prove writes them, into one proof of all
their keys (the children's key lists in the order given, then the --signatures file's
signers, which are proved first as one more leaf at the first child's rate):
  leanpipe prove --flow xmss-aggregate --child a.bin --child b.bin [--signatures s.json] --out m.bin
The children must sign one message and epoch with disjoint keys and verify; each is
checked natively before any work, and a bad one is an input error (exit status 2) naming
it. Children of rate 1 (prove's default) and 2 merge alike. The merged proof's
--log-inv-rate defaults to 2 up to four children, 3 above, and 3 when a child is itself
a merged proof. --nestable makes a no-reveal merged proof, which can be a --child again
(a tree of any depth); a merge with such a child is no-reveal too. A merge made without
--nestable cannot be merged again. "leanpipe verify m.bin" verifies the merged proof and
prints its statement.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := newLogger(cmd)
			if len(children) > 0 {
				sigs, _ := cmd.Flags().GetString("signatures")
				nestable, _ := cmd.Flags().GetBool("nestable")
				return proveMerge(cmd, children, sigs, out, format, rate, workers, nestable)
			}
			if err := signaturesInput(cmd, &flowName, &inputPath); err != nil {
				return err
			}
			if err := statesInput(cmd, &flowName, &inputPath); err != nil {
				return err
			}
			fl, err := lookupFlow(flowName)
			if err != nil {
				return err
			}
			if err := checkFormat(format); err != nil {
				return err
			}
			if out == "" {
				return usage("--out is required")
			}
			if workers < 0 || workers > 1024 {
				return usage("--workers: %d is out of range [0, 1024]", workers)
			}
			if err := checkOutFile("--out", out); err != nil {
				return err
			}
			if err := checkStatesOut(fl, out); err != nil {
				return err
			}
			if blocksPath != "" {
				if fl.Name() != flows.Name {
					return usage("--blocks is the %s flow's input; give --input for %s", flows.Name, fl.Name())
				}
				if inputPath != "" {
					return usage("give --input or --blocks, not both")
				}
				inputPath = blocksPath
			}
			// The budget is checked before anything is generated, signed or verified.
			mem, err := resolveBudget("--memory-budget", budget)
			if err != nil {
				return err
			}
			var in flows.Input
			switch {
			case inputPath != "" && cmd.Flags().Changed("n"):
				return usage("give --input or --n, not both")
			case inputPath != "":
				if in, err = readInput(fl, inputFlag(cmd), inputPath); err != nil {
					return err
				}
				if err := fl.Check(in.Len(), rate); err != nil {
					return usage("%v", err)
				}
				if err := mem.check("prove", fl, in.Len(), rate); err != nil {
					return err
				}
			case cmd.Flags().Changed("n"):
				if n < 1 || n > fl.MaxN() {
					return usage("--n: %d is out of range [1, %d]", n, fl.MaxN())
				}
				if err := fl.Check(generatedInstances(fl, n), rate); err != nil {
					return usage("%v", err)
				}
				if err := mem.check("prove", fl, generatedInstances(fl, n), rate); err != nil {
					return err
				}
				if in, err = fl.Generate(n, seed); err != nil {
					return usage("--n: %v", err)
				}
			default:
				return usage("give --input FILE or --n N")
			}
			if err := checkSignatures(in); err != nil {
				return err
			}
			e, err := flows.NewEngine(flows.EngineOptions{Cores: workers})
			if err != nil {
				return err
			}
			defer e.Close()
			log.Info().Str("flow", fl.Name()).Int("n", in.Len()).Int("log_inv_rate", rate).Int("cores", e.Scheduler().Cores()).Msg("proving")
			bar := newProgress(cmd.ErrOrStderr(), fmt.Sprintf("proving %d instances", in.Len()), 0)
			res, err := e.Prove(bar.stages(context.Background()), flows.Request{Flow: fl, Input: in, LogInvRate: rate})
			bar.finish()
			if err != nil {
				return err
			}
			if err := flows.WriteProof(out, res.Proof, flows.NewMetaFor(fl, res.Statement, format)); err != nil {
				return err
			}
			if err := trace.add(fmt.Sprintf("%s: %d instances", fl.Name(), in.Len()), res).write(); err != nil {
				return err
			}
			printSpans(cmd.OutOrStdout(), fmt.Sprintf("%s: %d instances (2^%d slots)", fl.Name(), in.Len(), res.Shape.NLog), res.Spans)
			log.Info().Str("proof", out).Dur("wall_ms", res.Wall).Msg("proved")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&flowName, "flow", flows.DefaultName, "the proof flow (leanpipe flows lists them)")
	f.StringVar(&inputPath, "input", "", "the flow's input file (for "+flows.Name+", compressions in the reference-proofs blocks layout, 112 bytes each)")
	f.StringVar(&blocksPath, "blocks", "", "the "+flows.Name+" flow's input file (same as --input)")
	f.IntVar(&n, "n", 0, "prove N generated instances instead of an input file")
	f.Uint64Var(&seed, "seed", 1, "seed of the generated instances (with --n)")
	f.StringVar(&out, "out", "", "proof file to write (PROOF.json is written beside it)")
	f.StringVar(&format, "format", "wire", "proof form: wire (the reference prover's) or raw (one path per query)")
	f.IntVar(&rate, "log-inv-rate", 1, "WHIR level-0 log inverse rate (1..4; 1 is the reference's; a merge's default is 2 up to four children, 3 above or with a merged child)")
	f.StringArrayVar(&children, "child", nil, "merge this xmss-aggregate proof, a leaf or a no-reveal merged proof (PROOF.json beside it); repeat, 2 to 8 children in all with --signatures")
	f.Bool("nestable", false, "with --child: make a no-reveal merged proof, which can itself be a --child (the default for leaves only is the revealing form, which cannot; a no-reveal child makes one anyway)")
	f.IntVar(&workers, "workers", 0, "cores to use (0 = all)")
	f.StringVar(&budget, "memory-budget", "auto", budgetHelp)
	addSignaturesFlag(cmd)
	addStatesFlag(cmd)
	trace = addTraceFlag(cmd)
	return cmd
}

// flowsCmd lists the registered flows.
func flowsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "flows",
		Short: "list the registered proof flows",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, f := range flows.Flows() {
				fmt.Fprintf(cmd.OutOrStdout(), "%-16s label %-27s max n %-8d %s\n", f.Name(), f.Label(), f.MaxN(), f.Summary())
			}
			return nil
		},
	}
}
