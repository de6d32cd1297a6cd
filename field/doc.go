// Package field implements the binary fields of the leanVM-b proof system.
//
// K = GF(2^64) = F2[x]/(x^64 + x^4 + x^3 + x + 1): a K element is a 64-bit word, bit i
// being the coefficient of x^i; addition is XOR. E = K[y]/(y^3 + y + 1) is the 192-bit
// challenge field; an E element c0 + c1·y + c2·y² is three K words. The GF(2^8)
// skip-domain embedding PHI maps bytes into K.
//
// Scalar operations are methods; the slice kernels the prover lives on wrap the
// raw-word kernels of package simd.
package field
