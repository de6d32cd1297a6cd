// Package aggregate is the Boolean R1CS of one XMSS signature verification (one Flock
// block per signature), so that leanpipe can prove that N signatures verify.
//
// The block (New) is 2^22 columns (LogSize): 2,359,254 constrained rows, useful
// prefix 2,363,648 (56% of the block). It checks exactly xmss.Verify (XMSS.md §6):
//
//   - Encoding: D = Th(P, tweak(3, 0, e), m ‖ ρ ‖ 0^8), two compressions; the digits
//     x_i are bits of D (linear). Asserted: bits 63 and 127 of D are 0, and
//     (Σ x_i) ⊕ 195 = 0 over 9 bits (an adder tree of one product per full adder).
//   - Chains: 99 chain-step slots, laid out chain-major by the prover. Slot j carries
//     a label (c_j: 6 bits, k'_j: 3 bits, a_j: the run's start position) and a start
//     flag s_j (free; slot 0 always starts). A start takes free (C_j, K_j, F_j):
//     c = C, k' = a = K, input F (the tip); otherwise c and a are the previous slot's,
//     k' = k'_{j−1} + 1 and the input is the previous slot's output: one product per
//     muxed bit (XMSS.md §12's start mux). The tweak is (0, 8c + k', e), linear in the
//     label and epoch bits. Asserted per slot: k'_j ≠ 7 (no step from position 7, so a
//     run cannot wrap its counter).
//   - Chain ends to the leaf: instead of §12's Beneš network, chain i's end is picked
//     by a binary mux tree over Window(i), the slots that can hold its last step in a
//     chain-major layout (S_i = Σ_{i'≤i}(7 − x_{i'}) ∈ [99 − 7·(41−i), 7·(i+1)]); the
//     picked lane brings its value and label. Asserted per chain: x_i = 7 or the label
//     is (i, 6, x_i). The end is T_i (a free input, the tip) when x_i = 7, else the
//     picked value. Soundness does not need the routing to be a permutation: every
//     lane is the output of a real run of correctly tweaked steps of chain c from
//     position a, started from a free value, so a lane labelled (i, 6, x_i) is chain
//     i walked from some value at position x_i to position 7 — which is what a
//     signature's tip gives; any x_i can pick any lane of its window, duplicates
//     included. The trees cost 2,744 two-way muxes of 140 bits (≈384k products),
//     more than a Beneš network's ≈115k but with no routing algorithm in the filler;
//     a Beneš or compaction network is the next squeeze (the block needs < 2^21).
//   - Leaf: Th(P, tweak(1, 0, e), end_0 ‖ … ‖ end_41), 11 compressions.
//   - Merkle: level ℓ muxes (node, A_ℓ) into (left, right) on epoch bit ℓ (128
//     products; right = node ⊕ A_ℓ ⊕ left is free) and hashes with tweak
//     (2, ℓ+1, e >> (ℓ+1)), a bit selection of the epoch.
//   - Root: the last parent's 128 bits are materialised as linear rows.
//
// Compressions come from circuit.Compress: additions whose operands are literals
// (the parameter IV, t, f) or whose message word is the literal 0 are folded.
//
// Pinned columns (Statement.Pinned gives every (column, bit); a later step binds them
// with a public-input lincheck term, XMSS.md §12):
//
//	column            region    value
//	0                 constant  1 (pinned by the lincheck's constant term today)
//	[1024, 1152)      P         P, bit 8·byte+b (input)
//	[1152, 1408)      message   m, same bit order (input)
//	[1408, 1440)      epoch     e, bit ℓ at 1408+ℓ (input)
//	[2048, 2176)      root      the computed root (linear rows), must equal pk.Root
//	[2176, 2328)      assert    0: bit63, bit127, sum[9], nowrap[99], tip[42]
//
// Every asserted constant other than these zeros is a literal (the constant column):
// tweak types and sub-positions, t and f of every compression, the IV, the target sum.
// Free inputs (Layout) start at 4096: ρ, the slot labels and start values, the
// selectors, T_i and the path; gates start at 28672.
//
// A witness (FillWitness, or Plan + Circuit.Solve for up to 64 blocks bit-sliced) is
// driven by the signature: Plan derives the layout from D's digits, SetInputs writes
// the inputs and circuit.Solve fills every row.
package aggregate
