//go:build amd64 && !purego

package blake2s

// Stubs until the AVX2 kernel lands: fall back to the portable path.
func sum8AVX2(dst *[8]Digest, src []byte, msgLen int) {
	for i := range dst {
		sum256Generic(&dst[i], src[i*msgLen:(i+1)*msgLen])
	}
}

func node8AVX2(dst *[8]Digest, children *[16]Digest) {
	for i := range dst {
		nodeGeneric(&dst[i], &children[2*i], &children[2*i+1])
	}
}
