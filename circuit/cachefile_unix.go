//go:build unix

package circuit

import (
	"os"
	"syscall"
)

// readCacheFile maps the file read-only (a program read in place is never written:
// a Circuit is immutable); the mapping is kept for the process unless released.
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

// releaseCacheFile unmaps a file readCacheFile mapped whose circuit was refused.
func releaseCacheFile(b []byte) { _ = syscall.Munmap(b) }
