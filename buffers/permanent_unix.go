//go:build unix

package buffers

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapAnon maps size zeroed bytes, private and anonymous, or returns nil when the
// kernel refuses.
func mapAnon(size int) unsafe.Pointer {
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil || len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}
