package buffers

import (
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// thpEnabled is the kernel's transparent-huge-page switch, absent without THP.
const thpEnabled = "/sys/kernel/mm/transparent_hugepage/enabled"

// hugeSupported reports whether the kernel has transparent huge pages at all.
func hugeSupported() bool {
	_, err := os.Stat(thpEnabled)
	return err == nil
}

// adviseHuge marks the 2 MiB-aligned interior of [p, p+size) MADV_HUGEPAGE. The
// advice changes no byte; a kernel that refuses it leaves 4 KiB pages, so its error
// is ignored.
func adviseHuge(p unsafe.Pointer, size int) {
	lo, hi := hugeRange(uintptr(p), size)
	if lo >= hi {
		return
	}
	b := unsafe.Slice((*byte)(p), size)
	off := int(lo - uintptr(p))
	_ = unix.Madvise(b[off:off+int(hi-lo)], unix.MADV_HUGEPAGE)
}

// kernelTHP returns the kernel's transparent-huge-page mode (the bracketed word of
// thpEnabled: always, madvise or never), or "" when it cannot be read.
func kernelTHP() string {
	b, err := os.ReadFile(thpEnabled)
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return ""
}
