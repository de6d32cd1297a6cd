package commit

import "fmt"

// Shape is a level-0 commitment's shape, the one description that the commit, the
// opening's prover and its verifier share: a stack of 2^StackLog words encoded at log
// inverse rate LogInvRate, of which the leading Lanes lane blocks (2^(StackLog-LaneLog)
// words each) are committed; the 2^LaneLog-Lanes blocks after them are zero, never
// encoded, and lead every Merkle leaf as zeros.
type Shape struct {
	StackLog   int
	LogInvRate int
	Lanes      int
}

// FullShape is the shape of a stack committed in all 2^LaneLog lanes.
func FullShape(stackLog, logInvRate int) Shape {
	return Shape{StackLog: stackLog, LogInvRate: logInvRate, Lanes: 1 << LaneLog}
}

// ShapeOf is the shape of committing the leading words of a 2^stackLog-word stack
// (a whole number of lane blocks) at logInvRate; it fails as Validate does.
func ShapeOf(words, stackLog, logInvRate int) (Shape, error) {
	if stackLog < MinStackLog || stackLog > MaxStackLog {
		return Shape{}, fmt.Errorf("%w: stack log %d", ErrShape, stackLog)
	}
	block := 1 << (stackLog - LaneLog)
	s := Shape{StackLog: stackLog, LogInvRate: logInvRate, Lanes: words / block}
	if s.Lanes*block != words {
		return Shape{}, fmt.Errorf("%w: stack of %d words is not 1..%d lane blocks of 2^%d", ErrShape, words, 1<<LaneLog, stackLog-LaneLog)
	}
	return s, s.Validate()
}

// Validate reports a stack size, rate or lane count outside the profile.
func (s Shape) Validate() error {
	switch {
	case s.StackLog < MinStackLog || s.StackLog > MaxStackLog:
		return fmt.Errorf("%w: stack log %d", ErrShape, s.StackLog)
	case s.LogInvRate < MinLogInvRate || s.LogInvRate > MaxLogInvRate:
		return fmt.Errorf("%w: log inverse rate %d", ErrShape, s.LogInvRate)
	case s.Lanes < 1 || s.Lanes > 1<<LaneLog:
		return fmt.Errorf("%w: %d committed lanes (want 1..%d)", ErrShape, s.Lanes, 1<<LaneLog)
	}
	return nil
}

// BlockWords is the number of words in one lane block, 2^(StackLog-LaneLog).
func (s Shape) BlockWords() int { return 1 << (s.StackLog - LaneLog) }

// Words is the number of committed words, Lanes lane blocks.
func (s Shape) Words() int { return s.Lanes * s.BlockWords() }

// BlockLog is log2 of the number of codeword rows (Merkle leaves).
func (s Shape) BlockLog() int { return s.StackLog - LaneLog + s.LogInvRate }
