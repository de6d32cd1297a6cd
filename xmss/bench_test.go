package xmss

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkGenerateKey generates keys over ranges of 2^4 and 2^10 epochs (2^10 skipped
// under -short).
func BenchmarkGenerateKey(b *testing.B) {
	for _, logR := range []int{4, 10} {
		b.Run(fmt.Sprintf("epochs=2^%d", logR), func(b *testing.B) {
			if logR > 4 && testing.Short() {
				b.Skip("heavy under -short")
			}
			var seed [SeedSize]byte
			start := time.Now()
			for i := 0; b.Loop(); i++ {
				seed[0] = byte(i)
				if _, _, err := GenerateKey(seed, 1000, 1000+1<<logR-1); err != nil {
					b.Fatal(err)
				}
			}
			perKey := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(float64(int(1)<<logR)/perKey, "epochs/s")
		})
	}
}

// BenchmarkSign signs random messages (the ρ search dominates, ~29.5k candidates on average).
func BenchmarkSign(b *testing.B) {
	sk, _, err := GenerateKey([SeedSize]byte{7}, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	for b.Loop() {
		if _, err := sk.Sign(0, randomMessage(r), rngReader{r}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "sigs/s")
}

// BenchmarkSignWithRandomness signs with a known ρ (chains and path only).
func BenchmarkSignWithRandomness(b *testing.B) {
	sk, _, _ := GenerateKey([SeedSize]byte{7}, 0, 0)
	r := rand.New(rand.NewPCG(1, 2))
	msg := randomMessage(r)
	sig, _ := sk.Sign(0, msg, rngReader{r})
	for b.Loop() {
		if _, err := sk.SignWithRandomness(0, msg, sig.Rho); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify verifies a KAT signature (144 compressions) and its traced variant.
func BenchmarkVerify(b *testing.B) {
	k := loadKAT(b)
	s := k.Signatures[0]
	pk, _ := ParsePublicKey(k.Signers[s.Signer].PublicKey)
	sig, _ := ParseSignature(s.Signature)
	msg := Message(s.Message)
	b.Run("Verify", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			if err := Verify(pk, s.Epoch, msg, &sig); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "verifies/s")
	})
	b.Run("VerifyTrace", func(b *testing.B) {
		for b.Loop() {
			if _, err := VerifyTrace(pk, s.Epoch, msg, &sig); err != nil {
				b.Fatal(err)
			}
		}
	})
}
