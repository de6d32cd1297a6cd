package commit

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateRejectReasons: the shape a verifier is given is checked field by field,
// each bad field named by its own check.
func TestValidateRejectReasons(t *testing.T) {
	for _, c := range []struct {
		sh   Shape
		want string
	}{
		{Shape{StackLog: MinStackLog - 1, LogInvRate: 1, Lanes: 64}, "stack log 14"},
		{Shape{StackLog: MaxStackLog + 1, LogInvRate: 1, Lanes: 64}, "stack log"},
		{Shape{StackLog: 15, LogInvRate: MinLogInvRate - 1, Lanes: 64}, "log inverse rate 0"},
		{Shape{StackLog: 15, LogInvRate: MaxLogInvRate + 1, Lanes: 64}, "log inverse rate"},
		{Shape{StackLog: 15, LogInvRate: 1, Lanes: 0}, "0 committed lanes"},
		{Shape{StackLog: 15, LogInvRate: 1, Lanes: 65}, "65 committed lanes"},
	} {
		err := c.sh.Validate()
		if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want ErrShape with %q", c.sh, err, c.want)
		}
	}
}
