package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// cpuProfile is the --cpuprofile and --memprofile flags' run: a CPU profile of the
// whole command, written to the file as it runs and closed when the command returns,
// and a heap profile written when it returns (its alloc_space view counts every
// allocation of the command by site; pprof format: go tool pprof leanpipe FILE).
type cpuProfile struct {
	f   *os.File
	mem string
}

func addProfileFlag(root *cobra.Command) {
	root.PersistentFlags().String("cpuprofile", "", "write a CPU profile of the command to FILE (go tool pprof reads it)")
	root.PersistentFlags().String("memprofile", "", "write a heap profile to FILE when the command returns (go tool pprof -sample_index=alloc_space reads what it allocated)")
}

// start begins the profile cmd's --cpuprofile names, if any, and notes its
// --memprofile (checked writable now, written at stop).
func (p *cpuProfile) start(cmd *cobra.Command) error {
	if fl := cmd.Flag("memprofile"); fl != nil && fl.Value.String() != "" {
		f, err := os.Create(fl.Value.String())
		if err != nil {
			return usage("--memprofile: %v", err)
		}
		f.Close()
		p.mem = fl.Value.String()
		runtime.MemProfileRate = 64 << 10
	}
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

// stop ends the profile, if one runs, writes the heap profile, if asked, and
// reports a failure to write either on stderr.
func (p *cpuProfile) stop(stderr io.Writer) {
	if p.mem != "" {
		if err := writeHeapProfile(p.mem); err != nil {
			fmt.Fprintln(stderr, "leanpipe: --memprofile:", err)
		}
		p.mem = ""
	}
	if p.f == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := p.f.Close(); err != nil {
		fmt.Fprintln(stderr, "leanpipe: --cpuprofile:", err)
	}
	p.f = nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
