//go:build unix

package circuit

import (
	"os"
	"syscall"
)

// readCacheFile maps the file read-only; the decoder copies what it keeps, and the
// mapping is released once the circuit is decoded.
func readCacheFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 || st.Size() > 1<<32 {
		return nil, errCacheFile
	}
	return syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
}

// releaseCacheFile unmaps a file readCacheFile mapped.
func releaseCacheFile(b []byte) { _ = syscall.Munmap(b) }
