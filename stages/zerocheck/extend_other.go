//go:build purego || !amd64

package zerocheck

func useAVX2() bool { return false }

func (d *skipDomain) extend3(a, b, c uint64, out *[3][8]uint64) {
	d.extend3Generic(a, b, c, out)
}
