// Package transcript is the Fiat–Shamir channel of leanVM-b proofs and their byte encoding.
//
// The state is a 256-bit chaining value cv = (w0, w1, w2, w3) of four 64-bit words, advanced
// only by compress(cv, b) = BLAKE2s-256 of the 64 bytes cv ‖ b (eight words, little-endian),
// read back as four words. Every block b carries data in lanes 0..2 and a domain tag in
// lane 3:
//
//	observe(x)      cv ← compress(cv, (x.c0, x.c1, x.c2, DS_SCALAR=1))
//	absorb_bytes(s) cv ← compress(cv, (len s, 0, 0, DS_LEN=3)), then per 24-byte chunk
//	                (zero-padded) cv ← compress(cv, (3 LE words, DS_BYTE=2))
//	sample()        cv ← compress(cv, (0, 0, 0, DS_SQUEEZE=4)); the challenge is (w0, w1, w2)
//	grind(bits)     base = compress(cv, (0, 0, 0, DS_POW_BASE=5)); a nonce n is valid when the
//	                low bits of word 0 of compress(base, (n.c0, n.c1, n.c2, DS_POW_NONCE=6))
//	                are zero (bits = 0 admits only n = 0); then cv ← compress(cv, (n, DS_POW_NONCE))
//
// A transcript starts from cv = 0, absorbs the byte string "leanvm-b/transcript/v4-blake2s",
// then the label, then observes each statement scalar.
//
// A proof has two channels. The stream is every transmitted scalar in protocol order: a
// sent scalar is appended and observed; a round polynomial omits the coefficient its claim
// fixes; a grinding nonce travels as E(n, 0, 0) and is bound by the nonce absorb, not by
// observe. The Merkle channel carries the openings, which are not absorbed (the Merkle
// structure binds them): in raw form one unpruned opening per query, in wire form one pruned
// multi-path per opening phase. Both forms are bincode 1 (see Proof).
//
// Prover and Verifier mirror each other call for call; the verifier never panics on proof
// bytes and reports every defect as an error.
package transcript
