// Sequences shared by the circuit walks' amd64 kernels (bilinear_amd64.s,
// rowsink_amd64.s, reverse_amd64.s, solve_amd64.s): fetching and dispatching a
// step, decoding its instruction, and the register and E-value moves the walks
// have in common.
//
// An instruction (instr in circuit.go) holds the op in bits 0..1, dst (a register,
// or opRow's row) in bits 2..25, opCol's column in bits 26..49, and otherwise the
// registers x in bits 26..44 and y in bits 45..63. Every walk keeps the current
// instruction in R8 and decodes dst (or the row) into R9, x or the column into R10
// and y into R11; SI is the step's address and DI the register file.
//
// A decode macro's lg is log2 of the bytes a field's unit spans in memory: the
// field comes out shifted left by lg, an offset ready for (base)(reg*1) (lg 5
// for 32-byte registers, 4 for 16-byte ones, 3 for one word per column or row).

// WALK_FETCH prefetches the code off bytes from SI (the code is read once per
// walk, so non-temporally, not to displace the register file from the outer
// caches) and loads the instruction at SI into R8. Reads SI; writes R8.
#define WALK_FETCH(off) \
	PREFETCHNTA off(SI) \
	MOVQ        (SI), R8

// OP_BRANCH jumps to xor for opXor (op bit 0, the commonest, tested first) and to
// row for opRow (op bit 1); it falls through for opCol. Reads R8; writes flags.
#define OP_BRANCH(xor, row) \
	TESTB $1, R8 \
	JNE   xor \
	TESTB $2, R8 \
	JNE   row

// OP_JUMP is OP_BRANCH ending in a jump to col for opCol.
#define OP_JUMP(xor, row, col) \
	OP_BRANCH(xor, row) \
	JMP col

// INS_DST sets R9 to the dst field shifted left by lg (lg ≥ 2). Reads R8; writes
// R9 and flags.
#define INS_DST(lg) \
	MOVQ R8, R9 \
	SHLQ $(lg-2), R9 \
	ANDQ $(0xFFFFFF<<lg), R9

// INS_ROW sets R9 to the dst field itself (opRow's row index). Reads R8; writes R9
// and flags.
#define INS_ROW \
	MOVQ R8, R9 \
	SHRQ $2, R9 \
	ANDQ $0xFFFFFF, R9

// INS_COL sets R10 to opCol's column shifted left by lg. Reads R8; writes R10 and
// flags.
#define INS_COL(lg) \
	MOVQ R8, R10 \
	SHRQ $(26-lg), R10 \
	ANDQ $(0xFFFFFF<<lg), R10

// INS_X sets R10 to the register x shifted left by lg. Reads R8; writes R10 and
// flags.
#define INS_X(lg) \
	MOVQ R8, R10 \
	SHRQ $(26-lg), R10 \
	ANDQ $(0x7FFFF<<lg), R10

// INS_Y sets R11 to the register y shifted left by lg. Reads R8; writes R11 and
// flags.
#define INS_Y(lg) \
	MOVQ R8, R11 \
	SHRQ $(45-lg), R11 \
	ANDQ $(-1<<lg), R11

// INS_XY is INS_X then INS_Y: R10 = x<<lg, R11 = y<<lg.
#define INS_XY(lg) \
	INS_X(lg) \
	INS_Y(lg)

// REG_XOR computes r[dst] = r[x] ^ r[y] for the register offsets in R9, R10, R11
// of the file at DI, one register in the vector V (Y for 32-byte registers, X for
// 16-byte ones). Reads R9, R10, R11, DI; writes V.
#define REG_XOR(V) \
	VMOVDQU (DI)(R10*1), V \
	VPXOR   (DI)(R11*1), V, V \
	VMOVDQU V, (DI)(R9*1)

// ADJ_XOR is a backward walk's opXor over 32-byte adjoint registers at DI: it
// decodes dst, x and y (R9, R10, R11 as INS_DST and INS_XY), then t = adj[dst],
// adj[dst] = 0, adj[x] ^= t, adj[y] ^= t, in this order, so that x = dst or y = dst
// is right. Reads R8, DI, Y15 (zero); writes R9, R10, R11, Y0, Y1 and flags.
#define ADJ_XOR \
	INS_DST(5) \
	INS_XY(5) \
	VMOVDQU (DI)(R9*1), Y0 \
	VMOVDQU Y15, (DI)(R9*1) \
	VPXOR   (DI)(R10*1), Y0, Y1 \
	VMOVDQU Y1, (DI)(R10*1) \
	VPXOR   (DI)(R11*1), Y0, Y1 \
	VMOVDQU Y1, (DI)(R11*1)

// E24_COPY copies the 24-byte E value at the memory operand src to dst (both
// written without an offset, e.g. (AX)(DX*8): the macro adds 16 for the third
// word). Writes X0, X1.
#define E24_COPY(src, dst) \
	VMOVDQU src, X0 \
	VMOVQ   16 src, X1 \
	VMOVDQU X0, dst \
	VMOVQ   X1, 16 dst

// E24_XOR adds (XORs) the 24-byte E value at the memory operand src into dst (both
// written without an offset, as for E24_COPY). Writes X0, AX.
#define E24_XOR(src, dst) \
	VMOVDQU src, X0 \
	MOVQ    16 src, AX \
	VPXOR   dst, X0, X0 \
	VMOVDQU X0, dst \
	XORQ    AX, 16 dst
