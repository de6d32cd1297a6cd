//go:build !amd64 || purego

package blake2s

func detectLevel() impl { return levelGeneric }

// sum8AVX2 and node8AVX2 are never called in this build: detectLevel never selects levelAVX2.
func sum8AVX2(dst *[8]Digest, src []byte, msgLen int) { panic("blake2s: no AVX2 in this build") }

func node8AVX2(dst *[8]Digest, children *[16]Digest) { panic("blake2s: no AVX2 in this build") }
