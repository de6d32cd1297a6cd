package xmss_test

import (
	"fmt"

	"github.com/leanpipe/leanpipe/xmss"
)

func Example() {
	// A key for epochs 100..115 (the activation range bounds key generation's work).
	sk, pk, err := xmss.GenerateKey([xmss.SeedSize]byte{1, 2, 3}, 100, 115)
	if err != nil {
		panic(err)
	}
	msg := xmss.Message{0x42}
	sig, err := sk.Sign(107, msg, nil) // ρ from crypto/rand
	if err != nil {
		panic(err)
	}
	b := sig.Bytes()
	parsed, _ := xmss.ParseSignature(b[:])
	fmt.Println(len(b), xmss.Verify(pk, 107, msg, &parsed))
	fmt.Println(xmss.Verify(pk, 108, msg, &parsed) != nil)
	// Output:
	// 1208 <nil>
	// true
}
