// Command leanpipe aggregates XMSS signatures into one proof (the xmss-aggregate
// flow, one 2^21-column block per signature) and proves batches of BLAKE2s
// compressions (the blake2s-batch flow), with leanVM-b's Flock and WHIR over
// GF(2^64), byte-compatible with the reference; it also verifies both.
//
// Exit status: 0 success or accepted, 1 rejected or failed, 2 usage or input error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/cpu"
)

// Version is the leanpipe version, set at build time with -ldflags "-X main.Version=…".
var Version = "0.1.0-dev"

// usageError marks errors of the command line or its inputs (exit status 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usage(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// rejected marks a proof that failed verification (exit status 1).
var errRejected = errors.New("rejected")

// newRoot is the command line and the profile its --cpuprofile starts, which the
// caller stops once the command returns.
func newRoot() (*cobra.Command, *cpuProfile) {
	prof := &cpuProfile{}
	root := &cobra.Command{
		Use:           "leanpipe",
		Short:         "leanpipe aggregates XMSS signatures into one proof and proves batches of BLAKE2s compressions, with leanVM-b's Flock + WHIR (byte-compatible with the reference)",
		SilenceUsage:  true,
		SilenceErrors: true,
		// An unknown $LEANPIPE_SIMD, $LEANPIPE_HUGEPAGES, $LEANPIPE_COMPILE_AFTER or
		// $LEANPIPE_CIRCUIT_CACHE and bad global flags are refused before any
		// command runs.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := cpu.Check(); err != nil {
				return usageError{err}
			}
			if err := buffers.CheckHugePagesEnv(); err != nil {
				return usageError{err}
			}
			if err := circuit.CheckCompileAfterEnv(); err != nil {
				return usageError{err}
			}
			if err := circuit.CheckCacheEnv(); err != nil {
				return usageError{err}
			}
			if f := cmd.Flag("log-level"); f != nil {
				if err := checkLogLevel(f.Value.String()); err != nil {
					return err
				}
			}
			return prof.start(cmd)
		},
		// The root runs only when no command matched: a usage error.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				cmd.SetOut(cmd.ErrOrStderr())
				_ = cmd.Help()
				return usage("give a command")
			}
			msg := fmt.Sprintf("unknown command %q (commands: %s)", args[0], strings.Join(commandNames(cmd), ", "))
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, " or ") + "?"
			}
			if strings.HasPrefix(args[0], "agg") {
				msg += "; to aggregate XMSS signatures: leanpipe prove --signatures FILE --out PROOF (leanpipe xmss --help describes FILE)"
			}
			return usage("%s", msg)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(versionCmd())
	addCommands(root)
	addProfileFlag(root)
	for _, c := range root.Commands() {
		if c.Args != nil {
			c.Args = usageArgs(c.Args)
		}
	}
	return root, prof
}

// usageArgs makes an argument check's error a usage error (exit status 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usage("%s: %v (usage: %s)", cmd.Name(), err, cmd.UseLine())
		}
		return nil
	}
}

// commandNames lists root's commands.
func commandNames(root *cobra.Command) []string {
	var out []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			out = append(out, c.Name())
		}
	}
	return out
}

// logLevels are the values of --log-level.
var logLevels = []string{"debug", "info", "warn", "error"}

func checkLogLevel(s string) error {
	if !slices.Contains(logLevels, s) {
		return usage("--log-level: %q, want one of %s", s, strings.Join(logLevels, ", "))
	}
	return nil
}

func main() {
	setMemoryLimit()
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// setMemoryLimit makes the machine's memory budget (the auto one: physical or cgroup
// memory less an eighth, or the address space under ulimit -v) the Go heap's soft
// limit, unless GOMEMLIMIT sets one: near it the collector runs more often instead of
// letting the garbage a merge leaves between stages push the process out of memory
// (with a 5 GiB limit, TestMergeNRTree8 peaked at 6.5 GB instead of 9.8 GB, in 25%
// more time; at the machine's budget the limit costs nothing until it is near).
func setMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if b := memoryLimit(); b > 0 {
		debug.SetMemoryLimit(b)
	}
}

// memoryLimit is the soft heap limit setMemoryLimit sets: the auto memory budget.
func memoryLimit() int64 { return autoBudget().Bytes }

// execute runs the command line and returns the exit status.
func execute(args []string, stdout, stderr io.Writer) int {
	return executeIn(args, os.Stdin, stdout, stderr)
}

// executeIn is execute with standard input from stdin.
func executeIn(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root, prof := newRoot()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	prof.stop(stderr)
	if err == nil {
		return 0
	}
	var u usageError
	switch {
	case errors.As(err, &u):
		fmt.Fprintln(stderr, "leanpipe:", err)
		return 2
	case errors.Is(err, errRejected):
		return 1
	default:
		fmt.Fprintln(stderr, "leanpipe:", err)
		return 1
	}
}

// longRunning marks this process as one that proves or verifies many times (serve,
// a fleet worker, a streaming run; bench measures its steady state): each circuit's
// walk segments are planned at its first walk on several cores (0.26–0.64 s at 2^21
// columns, once), not after two serial walks, so no later proof walks serially or
// pays for the planning. A one-shot prove or verify keeps the default. restore puts
// the default back.
func longRunning() (restore func()) {
	prev := circuit.PlanSegmentsAfter(0)
	return func() { circuit.PlanSegmentsAfter(prev) }
}
