//go:build amd64 && !purego

package ntt

const haveAsm = true

// fwdVPCL applies the forward butterfly to n words at u and v.
// Requires AVX2 and VPCLMULQDQ; n must be a positive multiple of 4; no alignment.
//
//go:noescape
func fwdVPCL(u, v *uint64, n int, lambda uint64)

// invVPCL applies the inverse butterfly to n words at u and v.
// Requires AVX2 and VPCLMULQDQ; n must be a positive multiple of 4; no alignment.
//
//go:noescape
func invVPCL(u, v *uint64, n int, lambda uint64)

// fwdPCL applies the forward butterfly to n words at u and v.
// Requires PCLMULQDQ (SSE2 is baseline); n must be a positive multiple of 2; no alignment.
//
//go:noescape
func fwdPCL(u, v *uint64, n int, lambda uint64)

// invPCL applies the inverse butterfly to n words at u and v.
// Requires PCLMULQDQ; n must be a positive multiple of 2; no alignment.
//
//go:noescape
func invPCL(u, v *uint64, n int, lambda uint64)

func fwdPCLMUL(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	n := len(u) &^ 1
	if n > 0 {
		fwdPCL(&u[0], &v[0], n, lambda)
	}
	if n < len(u) {
		fwdGeneric(u[n:], v[n:], lambda)
	}
}

func invPCLMUL(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	n := len(u) &^ 1
	if n > 0 {
		invPCL(&u[0], &v[0], n, lambda)
	}
	if n < len(u) {
		invGeneric(u[n:], v[n:], lambda)
	}
}

func fwdAsm(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	n := len(u) &^ 3
	if n > 0 {
		fwdVPCL(&u[0], &v[0], n, lambda)
	}
	if n < len(u) {
		fwdGeneric(u[n:], v[n:], lambda)
	}
}

func invAsm(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	n := len(u) &^ 3
	if n > 0 {
		invVPCL(&u[0], &v[0], n, lambda)
	}
	if n < len(u) {
		invGeneric(u[n:], v[n:], lambda)
	}
}
