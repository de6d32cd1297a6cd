package main

import (
	"io"
	"os"
	"time"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
)

// terminal reports whether w is a terminal.
func terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// newLogger returns the command's structured logger on stderr: a human console on a
// terminal, JSON lines otherwise, at the --log-level level.
func newLogger(cmd *cobra.Command) zerolog.Logger {
	lvl, err := zerolog.ParseLevel(cmd.Flag("log-level").Value.String())
	if err != nil || lvl == zerolog.NoLevel {
		lvl = zerolog.InfoLevel
	}
	w := cmd.ErrOrStderr()
	if terminal(w) {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly}
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger()
}

func printSpans(w io.Writer, title string, spans []graph.Span) {
	graph.WriteTable(w, title, spans)
}

// kernelLevels is every kernel family's level in use, in protocol order.
func kernelLevels() string {
	return cpu.Kernels("field", "ntt", "blake2s", "zerocheck", "reduce", "open", "circuit")
}
