package aggregate

import (
	"bytes"
	"fmt"
	"strconv"
)

// epochJSON is an epoch in a statement or input file: a JSON integer in
// 0..2^32-1, refused in words a user understands otherwise (not a Go type name).
type epochJSON uint32

func (e epochJSON) MarshalJSON() ([]byte, error) {
	return strconv.AppendUint(nil, uint64(e), 10), nil
}

func (e *epochJSON) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return fmt.Errorf("epoch %s: epoch must be 0..2^32-1", s)
	}
	*e = epochJSON(v)
	return nil
}
