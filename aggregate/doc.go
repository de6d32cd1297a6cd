// Package aggregate is the xmss-aggregate flow: one proof that N XMSS signatures on
// one message and epoch verify under N public keys, given in order. It is a Flock
// flow (package flows) over the Boolean R1CS of one signature verification, one
// 2^21-column block per signature (docs/xmss-aggregate.md is the specification).
//
// The pieces:
//
//   - The statement (Aggregate; JSON beside the metadata in PROOF.json) is absorbed
//     in the transcript after the label, and its bits are pinned into every block by
//     the lincheck's public-input term (PublicWindow, PublicTable): P, the message,
//     the epoch, the root and the asserted zeros.
//   - The circuit (New, circuit.go): the encoding (2 compressions, digit checks, an
//     adder tree for the target sum), 99 chain-step slots laid out chain-major with
//     start muxes and a no-wrap check, a pruned 128-lane Beneš network (benes.go)
//     routing chain ends (and free lanes for chains with x_i = 7) into the leaf with
//     a label check per chain, the leaf (11 compressions), 32 Merkle levels swapped
//     on the epoch's bits, and the root materialised at fixed columns. 2,031,385 ANDs;
//     D and every slot's output are materialised as columns, so that no linear form
//     lives long in a walk's registers (Circuit.BilinearPair cuts the program into
//     segments walked on several cores).
//   - The witness (Plan, SetInputs, fill): the filler lays out the signature's
//     chains, routes the network (looping algorithm) and solves 64 blocks per
//     bit-sliced word, several words per walk of the circuit.
//   - Inputs (Input, ParseInput): the JSON file of signers; Generate makes
//     deterministic signers with short activation ranges, cached on disk.
//
// The package exists so that the XMSS statement, its circuit and its witness live
// together, beside the stages that prove any Flock circuit.
package aggregate
