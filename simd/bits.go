package simd

// Transpose8x8 transposes the 8x8 bit matrix whose row i is byte i of x (column j is
// bit j of the byte): bit 8i+j moves to bit 8j+i.
func Transpose8x8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00AA00AA00AA00AA
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000CCCC0000CCCC
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000F0F0F0F0
	x ^= t ^ t<<28
	return x
}
