//go:build !unix

package buffers

import "unsafe"

// mapAnon returns nil: Permanent falls back to the heap.
func mapAnon(int) unsafe.Pointer { return nil }
