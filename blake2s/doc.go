// Package blake2s implements the unkeyed BLAKE2s-256 hash of RFC 7693: the 64-byte → 32-byte
// node hash of Merkle trees and the Fiat–Shamir transcript, and many-lane hashing of
// independent equal-length messages (Merkle layers, leaf rows).
//
// The math object is the compression function F(h, m, t, f) of RFC 7693 §3.2: 10 rounds of
// the G mixing function over a 16-word working vector v = h ‖ IV, with the 64-bit byte counter
// t xored into v12, v13 and the final-block flag f0 into v14. A message of n bytes is split into
// ⌈n/64⌉ blocks (one zero block when n = 0); block i is compressed with t = min(64(i+1), n) and
// f0 = 0xFFFFFFFF on the last block only. The parameter block sets h0 = IV0 ⊕ 0x01010020
// (digest length 32, key length 0, fanout 1, depth 1).
//
// Entry points:
//   - Sum256, Node: one message.
//   - SumMany, NodeMany: many equal-length messages. At the avx2 level, groups of 8 messages
//     go through an 8-lane kernel that keeps the state transposed (one ymm register holds
//     one state word of 8 lanes, message words are transposed in from the 8 inputs); the
//     remaining 0..7 messages take the single-message path. At the avx512-vpclmul level,
//     groups of 16 go through a 16-lane kernel of the same shape on zmm (the state in
//     Z0..Z15, the transposed block in Z16..Z31, rotations by VPRORD), then at most one
//     group of 8 and the single-message path.
//   - SumManyZeroPrefix: SumMany of messages that all start with the same whole zero blocks
//     (zero-padded Merkle leaf images); the prefix's chaining value is computed once and
//     every lane continues from it.
//   - Compress: the raw compression function F, for circuits and witnesses that need the
//     intermediate chaining values.
//
// Levels: "generic" is portable Go (F unrolled by go generate, compress_generic.go); "avx2"
// (amd64 with AVX2) adds the 8-lane kernel and a single-message kernel with 128-bit AVX rows
// (blake2s_amd64.s); "avx512-vpclmul" adds the 16-lane kernel (many16_amd64.s), which needs
// only AVX-512F of that level's features. The level is chosen once at start-up from CPU
// features (dispatch.go, the one place they are read); building with -tags=purego uses only
// Go. Outputs never depend on the level; tests run every level against the portable one.
package blake2s
