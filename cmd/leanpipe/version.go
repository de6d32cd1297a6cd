package main

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
	"github.com/spf13/cobra"
)

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the version, the Go version and the CPU features in use",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "leanpipe %s\n", Version)
			fmt.Fprintf(w, "go %s %s/%s, %d cores\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
			fmt.Fprintf(w, "cpu %s\n", cpuid.CPU.BrandName)
			var feats []string
			for _, f := range []struct {
				name string
				id   cpuid.FeatureID
			}{{"pclmulqdq", cpuid.CLMUL}, {"avx2", cpuid.AVX2}, {"vpclmulqdq", cpuid.VPCLMULQDQ}, {"avx512f", cpuid.AVX512F}, {"gfni", cpuid.GFNI}} {
				if cpuid.CPU.Supports(f.id) {
					feats = append(feats, f.name)
				}
			}
			fmt.Fprintf(w, "features %s\n", strings.Join(feats, " "))
			fmt.Fprintf(w, "kernels %s\n", kernelLevels())
			return nil
		},
	}
}
