//go:build purego || !amd64

package circuit

import "github.com/leanpipe/leanpipe/field"

// runArch reports that the backward walk has no assembly here.
func (rw *revWalk) runArch([]field.E, []instr) bool { return false }
