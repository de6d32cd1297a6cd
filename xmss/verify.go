package xmss

import "fmt"

// Verify checks sig on msg at epoch under pk, exactly as the reference's xmss_verify
// (docs/xmss.md §6): it returns nil, or an error wrapping ErrInvalidWots (the encoding rejects ρ)
// or ErrInvalidMerklePath (the recomputed root differs from pk's). Any epoch is legal: the
// verifier never sees the signer's activation range. It never panics.
func Verify(pk PublicKey, epoch uint32, msg Message, sig *Signature) error {
	x, err := Encode(&pk.P, epoch, &msg, &sig.Rho)
	if err != nil {
		return err
	}
	var ends [V]Digest
	for i := range ends {
		ends[i] = walkChain(&pk.P, epoch, i, int(x[i]), ChainLength-1-int(x[i]), sig.Tips[i])
	}
	node := Leaf(&pk.P, epoch, &ends)
	for l := range sig.Path {
		parent := uint32(uint64(epoch) >> (l + 1))
		if epoch>>l&1 == 0 {
			node = MerkleNode(&pk.P, l+1, parent, &node, &sig.Path[l])
		} else {
			node = MerkleNode(&pk.P, l+1, parent, &sig.Path[l], &node)
		}
	}
	if node != pk.Root {
		return fmt.Errorf("%w: computed root %x, public key root %x", ErrInvalidMerklePath, node, pk.Root)
	}
	return nil
}
