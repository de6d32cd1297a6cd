// Package atomicfile writes files so that a reader never sees a partial one: the data
// goes to a temporary file in the same directory, is synced, then renamed into place.
// Errors name the path asked for, never the temporary file.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path atomically with mode 0644.
func Write(path string, data []byte) error { return WriteMode(path, data, 0o644) }

// WriteMode writes data to path atomically with the given mode (0600 for a secret:
// the temporary file is never readable by others either, and an existing file at
// path is replaced, not reused, so its old mode does not survive).
func WriteMode(path string, data []byte, mode os.FileMode) (err error) {
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		return fmt.Errorf("atomicfile: %s is a directory", path)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, bare(err))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("atomicfile: writing %s: %w", path, bare(err))
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// bare drops the temporary file's name from a path or link error.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// CheckDir reports whether files can be created in dir: it exists, is a directory
// and is writable (a temporary file is created there and removed).
func CheckDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("directory %s does not exist", dir)
		}
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".leanpipe-check-*")
	if err != nil {
		return fmt.Errorf("directory %s is not writable: %w", dir, bare(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// Check reports, without writing path, whether Write(path, …) can succeed: its
// directory exists and is writable, and path is not a directory.
func Check(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory; give a file name", path)
	}
	return CheckDir(filepath.Dir(path))
}
