package main

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/internal/sysmem"
	"github.com/spf13/cobra"
)

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the version, the Go version and the CPU features, the kernel level of each family, the huge-page advice and the Go heap's soft limit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "leanpipe %s\n", Version)
			fmt.Fprintf(w, "go %s %s/%s, %d cores\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
			fmt.Fprintf(w, "cpu %s\n", cpu.Brand())
			fmt.Fprintf(w, "features %s\n", strings.Join(cpu.Features(), " "))
			fmt.Fprintf(w, "kernels %s\n", kernelLevels())
			fmt.Fprintf(w, "hugepages %s\n", buffers.HugePageStatus())
			fmt.Fprintf(w, "heap limit %s\n", heapLimit())
			return nil
		},
	}
}

// heapLimit is the Go heap's soft limit as version prints it: its size, or "none".
func heapLimit() string {
	b := debug.SetMemoryLimit(-1)
	if b == math.MaxInt64 {
		return "none"
	}
	return sysmem.Format(b)
}
