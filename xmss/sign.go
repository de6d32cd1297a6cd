package xmss

import (
	"crypto/rand"
	"fmt"
	"io"
)

// Sign signs msg at epoch, drawing candidate ρ from r (crypto/rand.Reader if nil) until the
// encoding accepts one (about 29,500 candidates on average, docs/xmss.md §3). Candidates are read
// from r in batches, so r may be read past the accepted ρ.
//
// Never sign twice at one epoch: the key does not remember which epochs it has used.
func (sk *SecretKey) Sign(epoch uint32, msg Message, r io.Reader) (Signature, error) {
	if err := sk.checkEpoch(epoch); err != nil {
		return Signature{}, err
	}
	if r == nil {
		r = rand.Reader
	}
	rho, x, _, err := findRandomness(&sk.p, epoch, &msg, func(b []byte) error {
		_, err := io.ReadFull(r, b)
		return err
	})
	if err != nil {
		return Signature{}, fmt.Errorf("xmss: reading randomness: %w", err)
	}
	return sk.sign(epoch, rho, &x), nil
}

// SignWithRandomness signs msg at epoch with the given ρ, as the reference does once its
// search has drawn ρ; it returns an error wrapping ErrInvalidWots if the encoding rejects ρ.
func (sk *SecretKey) SignWithRandomness(epoch uint32, msg Message, rho Randomness) (Signature, error) {
	if err := sk.checkEpoch(epoch); err != nil {
		return Signature{}, err
	}
	x, err := Encode(&sk.p, epoch, &msg, &rho)
	if err != nil {
		return Signature{}, err
	}
	return sk.sign(epoch, rho, &x), nil
}

func (sk *SecretKey) checkEpoch(epoch uint32) error {
	if epoch < sk.epochStart || epoch > sk.epochEnd {
		return fmt.Errorf("%w: epoch %d, range [%d, %d]", ErrEpochOutOfRange, epoch, sk.epochStart, sk.epochEnd)
	}
	return nil
}

// sign walks every chain from its secret to its digit and reads the path from the band.
func (sk *SecretKey) sign(epoch uint32, rho Randomness, x *[V]uint8) Signature {
	sig := Signature{Rho: rho}
	for i := range sig.Tips {
		sig.Tips[i] = walkChain(&sk.p, epoch, i, 0, int(x[i]), sk.secret(epoch, i))
	}
	for l := range sig.Path {
		sig.Path[l] = sk.node(l, uint64(epoch)>>l^1)
	}
	return sig
}
