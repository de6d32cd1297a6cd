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
//   - Sum256, Node: one message on the portable path.
//   - SumMany, NodeMany: many equal-length messages; on amd64 with AVX2, groups of 8 messages
//     go through an 8-lane kernel that keeps the state transposed (one ymm register holds
//     one state word of 8 lanes); the remainder takes the portable path.
//   - Compress: the raw compression function F, for circuits and witnesses that need the
//     intermediate chaining values.
//
// The instruction-set level is chosen once at start-up from CPU features (dispatch.go);
// building with -tags=purego uses only Go. Outputs never depend on the level.
package blake2s
