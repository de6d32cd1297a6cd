// Sequences shared by the 64×64 bit transposes (transpose_amd64.s, AVX-512 with
// GFNI, and transpose_avx2_amd64.s, AVX2). A matrix is 64 rows of one word each,
// several rows to a vector register.

// SWAP_STEP exchanges the J-bit off-diagonal blocks between rows A (the lower row
// index) and B under mask M, with T as scratch: t = ((A >> J) ^ B) & M, B ^= t,
// A ^= t << J (Transpose64's step, on every row pair the registers hold at once).
// xor and and are the vector XOR and AND of the registers' encoding (VPXOR and
// VPAND for ymm, VPXORQ and VPANDQ for zmm). Reads M; writes A, B, T.
#define SWAP_STEP(xor, and, A, B, T, M, J) \
	VPSRLQ J, A, T \
	xor    B, T, T \
	and    M, T, T \
	xor    T, B, B \
	VPSLLQ J, T, T \
	xor    T, A, A

// SWAP is SWAP_STEP on ymm registers (AVX2), SWAPZ on zmm registers (AVX-512).
#define SWAP(A, B, T, M, J) SWAP_STEP(VPXOR, VPAND, A, B, T, M, J)
#define SWAPZ(A, B, T, M, J) SWAP_STEP(VPXORQ, VPANDQ, A, B, T, M, J)

// LOAD4 loads R0..R3 with mov from off, off+s, off+2s and off+3s bytes past p.
#define LOAD4(mov, p, off, s, R0, R1, R2, R3) \
	mov (off)(p), R0 \
	mov (off+s)(p), R1 \
	mov (off+2*s)(p), R2 \
	mov (off+3*s)(p), R3

// STORE4 stores R0..R3 with mov to off, off+s, off+2s and off+3s bytes past p.
#define STORE4(mov, p, off, s, R0, R1, R2, R3) \
	mov R0, (off)(p) \
	mov R1, (off+s)(p) \
	mov R2, (off+2*s)(p) \
	mov R3, (off+3*s)(p)
