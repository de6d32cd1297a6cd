// Command leanpipe proves and verifies leanVM-b Flock BLAKE2s batch proofs.
//
// Exit status: 0 success or accepted, 1 rejected or failed, 2 usage or input error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

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

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "leanpipe",
		Short:         "leanpipe proves batches of BLAKE2s compressions with leanVM-b's Flock + WHIR, byte-compatible with the reference",
		SilenceUsage:  true,
		SilenceErrors: true,
		// An unknown $LEANPIPE_SIMD is refused before any command runs.
		PersistentPreRunE: func(*cobra.Command, []string) error {
			if err := cpu.Check(); err != nil {
				return usageError{err}
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(versionCmd())
	addCommands(root)
	return root
}

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// execute runs the command line and returns the exit status.
func execute(args []string, stdout, stderr io.Writer) int {
	return executeIn(args, os.Stdin, stdout, stderr)
}

// executeIn is execute with standard input from stdin.
func executeIn(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
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
