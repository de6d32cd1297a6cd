// Package witness writes the committed Flock witness of a batch of BLAKE2s
// compressions straight into the packed stack buffer, with word-level arithmetic.
//
// The batch has 2^nLog slots, nLog = NLog(N) = max(3, ⌈log2 N⌉); slot s < N holds
// the s-th Compression, every later slot the Padding block (the pinned compression
// of the all-zero message: h = ParamIV, m = 0, t = 64, f0 = 0xFFFFFFFF, f1 = 0).
// Each slot is one block of the circuit.BLAKE2s() R1CS, 2^14 bits: the inputs, the
// outputs, the constant 1 and the 14720 adder products (carries, majorities and
// ripple carries of every 32-bit add of the ten rounds), computed per compression
// with 32-bit adds, XORs and rotates rather than gate by gate.
//
// # Packing contract (w, a = A0·w, b = B0·w; c = C0·w = w since C0 = I)
//
// Each vector has 2^(14+nLog) bits, packed 64 per K word (LOG_PACKING = 6), so
// Words(nLog) = 2^(8+nLog) words. Constraint row (= column) r ∈ [0, 2^14) of slot s
// is global bit j = s·2^14 + r, stored as
//
//	bit (j mod 64) of word j/64  =  bit (r mod 64) of word s·256 + r/64,
//
// where bit i of a K word is its coefficient of x^i (bit i of the uint64). So slot s
// is the 256 words [s·256, (s+1)·256); rows [16000, 16384) of every slot are empty
// (zero in w, a and b), and so are rows [513, 640). The committed column q_flock is
// exactly w (mu = 8 + nLog variables, the packed bit index being the low 6 of the
// 14 + nLog Boolean coordinates, low coordinate first).
//
// Pos(s, r) returns that (word, bit). Fill writes w only (the commitment's input);
// FillAB also writes a and b for the zerocheck; NewStage wraps FillAB as a graph
// stage (Job → Batch). Neither touches words past Words(nLog): the caller zero-pads a stack
// that is larger. The bytes never depend on the worker count.
//
// Blocks files (the reference's input format) are N blocks of 112 bytes,
// h[8], m[16] as u32 LE, t as u64 LE, f0, f1 as u32 LE: DecodeBlocks.
package witness
