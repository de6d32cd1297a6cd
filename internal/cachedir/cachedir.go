package cachedir

import (
	"os"
	"path/filepath"
)

// Env names the environment variable that sets the directory.
const Env = "LEANPIPE_CACHE_DIR"

// Dir is $LEANPIPE_CACHE_DIR, else the user cache directory's leanpipe folder, else
// "" (no cache).
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "leanpipe")
}
