//go:build !linux

package buffers

import "unsafe"

// hugeSupported: huge-page advice is implemented for Linux only.
func hugeSupported() bool { return false }

func adviseHuge(unsafe.Pointer, int) {}

func kernelTHP() string { return "" }
