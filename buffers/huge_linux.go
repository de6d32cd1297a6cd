package buffers

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeSupported reports whether the kernel has transparent huge pages at all.
func hugeSupported() bool {
	_, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled")
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
