//go:build !unix

package circuit

import "os"

// readCacheFile reads the file (no mapping on this system).
func readCacheFile(path string) ([]byte, error) { return os.ReadFile(path) }

func releaseCacheFile([]byte) {}
