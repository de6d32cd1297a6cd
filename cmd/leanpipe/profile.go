package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// cpuProfile is the --cpuprofile flag's run: a CPU profile of the whole command,
// written to the file as it runs and closed when the command returns (pprof format:
// go tool pprof leanpipe FILE).
type cpuProfile struct {
	f *os.File
}

func addProfileFlag(root *cobra.Command) {
	root.PersistentFlags().String("cpuprofile", "", "write a CPU profile of the command to FILE (go tool pprof reads it)")
}

// start begins the profile cmd's --cpuprofile names, if any.
func (p *cpuProfile) start(cmd *cobra.Command) error {
	fl := cmd.Flag("cpuprofile")
	if fl == nil || fl.Value.String() == "" {
		return nil
	}
	f, err := os.Create(fl.Value.String())
	if err != nil {
		return usage("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return usage("--cpuprofile %s: %v", fl.Value.String(), err)
	}
	p.f = f
	return nil
}

// stop ends the profile, if one runs, and reports a failure to write it on stderr.
func (p *cpuProfile) stop(stderr io.Writer) {
	if p.f == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := p.f.Close(); err != nil {
		fmt.Fprintln(stderr, "leanpipe: --cpuprofile:", err)
	}
	p.f = nil
}
