package stream

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/xmss"
)

// MaxListed is how many invalid signatures an error names before "…and N more";
// MaxErrorBytes bounds the text of such an error.
const (
	MaxListed     = 8
	MaxErrorBytes = 4 << 10
)

// SignatureReason words why a signature does not verify for people: a signature
// made for another message or epoch (or with another key) fails the WOTS encoding
// almost always, else the Merkle path.
func SignatureReason(err error) string {
	switch {
	case errors.Is(err, xmss.ErrInvalidWots):
		return "signature does not verify for this message/epoch (WOTS encoding invalid)"
	case errors.Is(err, xmss.ErrInvalidMerklePath):
		return "signature does not verify under this public key for this message/epoch (Merkle path invalid)"
	}
	return err.Error()
}

// InvalidLines are the lines naming a check's invalid signatures, "signature <i>
// invalid: <reason>", the first MaxListed of them and then "…and N more".
func InvalidLines(bad *aggregate.InvalidSignatures) []string {
	var lines []string
	for i, b := range bad.Bad {
		if i == MaxListed {
			lines = append(lines, fmt.Sprintf("…and %d more", len(bad.Bad)-MaxListed))
			break
		}
		lines = append(lines, fmt.Sprintf("signature %d invalid: %s", b.Index, SignatureReason(b.Err)))
	}
	return lines
}

// DescribeInput words an input check's error (flows.CheckInput) for a result: for
// invalid signatures, how many of how many, the first MaxListed by index and reason
// and how many more; any text is cut at MaxErrorBytes.
func DescribeInput(err error) string {
	var bad *aggregate.InvalidSignatures
	s := err.Error()
	if errors.As(err, &bad) {
		s = fmt.Sprintf("%d of %d signatures invalid: %s", len(bad.Bad), bad.Of, strings.Join(InvalidLines(bad), "; "))
	}
	return BoundText(s, MaxErrorBytes)
}

// BoundText cuts s to at most max bytes (on a character boundary), ending it with
// "… (N bytes more)" when it was cut.
func BoundText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes more)", s[:cut], len(s)-cut)
}

// inputError is an input check's error worded by DescribeInput, still matching
// its cause with errors.Is and errors.As.
type inputError struct {
	msg   string
	cause error
}

func (e *inputError) Error() string   { return e.msg }
func (e *inputError) Unwrap() []error { return []error{ErrJob, e.cause} }
