package recursion

import (
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
)

// BenchmarkMergedVerify times Merged.Verify of a 2→1 merge of leaves of
// LEANPIPE_MERGE_SIGS signers each (default 200), at rate 2, made before timing.
func BenchmarkMergedVerify(b *testing.B) {
	skipProofs(b, "proves a 2→1 merge")
	leaves := benchLeaves(b)
	m, err := Merge(mergeChildren(leaves), 2, par.New(nil, 2))
	if err != nil {
		b.Fatal(err)
	}
	file, st := m.ProofBytes(), m.Statement()
	b.ResetTimer()
	for b.Loop() {
		if err := VerifyMerged(file, st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergedVerifyFile times the verification of the merged proof file named by
// LEANPIPE_MERGED (either form: revealing or no-reveal; its statement in the .json
// beside it, as prove writes them) in a process that has built no circuit: the path
// of a one-shot verifier, then (LEANPIPE_COMPILE_AFTER) of a warm one.
func BenchmarkMergedVerifyFile(b *testing.B) {
	path := os.Getenv("LEANPIPE_MERGED")
	if path == "" {
		b.Skip("LEANPIPE_MERGED names no merged proof file")
	}
	file, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	meta, err := os.ReadFile(path + ".json")
	if err != nil {
		b.Fatal(err)
	}
	fm, err := flows.ParseMeta(meta)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := flows.VerifyBytes(file, fm); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMerge times a warm 2→1 merge of leaves of LEANPIPE_MERGE_SIGS signers each
// (default 200) at rate 2, the leaves made and the block circuits compiled before
// timing.
func BenchmarkMerge(b *testing.B) {
	benchMerge(b, func(c []MergeChild, w par.Workers) error { _, err := Merge(c, 2, w); return err })
}

// BenchmarkMergeNR is BenchmarkMerge for the no-reveal (nestable) merge.
func BenchmarkMergeNR(b *testing.B) {
	benchMerge(b, func(c []MergeChild, w par.Workers) error { _, err := MergeNR(c, 2, w); return err })
}

// benchMerge times merge on two bench leaves, after one untimed merge.
func benchMerge(b *testing.B, merge func([]MergeChild, par.Workers) error) {
	skipProofs(b, "proves 2→1 merges")
	leaves := benchLeaves(b)
	w := par.New(nil, runtime.GOMAXPROCS(0))
	if err := merge(mergeChildren(leaves), w); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := merge(mergeChildren(leaves), w); err != nil {
			b.Fatal(err)
		}
	}
}

// benchLeaves proves two sibling leaves of LEANPIPE_MERGE_SIGS signers each (default
// 200) at rate 2.
func benchLeaves(b *testing.B) []flows.Proved {
	n := 200
	if s := os.Getenv("LEANPIPE_MERGE_SIGS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("LEANPIPE_MERGE_SIGS=%q: a positive count", s)
		}
		n = v
	}
	return siblingLeaves(b, 2, n, 2, 7)
}
