package open

import (
	"errors"
	"fmt"
	"github.com/leanpipe/leanpipe/stages/commit"
)

// Protocol constants of the production WHIR profile (spec annex B): the first level
// folds six variables (the 64 lanes of a level-0 Merkle row), every later one three;
// the Reed–Solomon domain shrinks by 2^3 after the first fold and by 2 after each
// later one; the ladder stops once at most 2^5 values remain, which are sent in the
// clear; every level's queries are preceded by 17 bits of grinding.
const (
	InitialFold         = commit.LaneLog
	SubsequentFold      = 3
	initialDomainShrink = 3
	laterDomainShrink   = 1
	ResidualMaxLog      = 5
	QueryGrindingBits   = 17
	MinStackLog         = commit.MinStackLog
	MaxStackLog         = commit.MaxStackLog
	MinLogInvRate       = commit.MinLogInvRate
	MaxLogInvRate       = commit.MaxLogInvRate
	level0LaneWords     = 1 << InitialFold
	extWordsPerElement  = 3
)

// ErrShape reports a stack size or rate outside the tabulated profile.
var ErrShape = errors.New("open: invalid WHIR shape")

// queryTable[logInvRate-1][stackLog-MinStackLog] lists each level's query count
// (the reference tabulates four sizes past MaxStackLog; they are kept, unused).
// These are the reference's tabulated counts for the 128-bit profile; the ladder
// they match is the one DeriveConfig builds.
var queryTable = [MaxLogInvRate][][]int{
	{
		{223, 56, 36}, {223, 56, 37}, {223, 56, 37}, {224, 56, 37, 28}, {224, 56, 37, 28}, {224, 56, 38, 28},
		{224, 56, 38, 28, 22}, {225, 56, 38, 28, 23}, {225, 56, 38, 28, 23}, {225, 56, 38, 28, 23, 19},
		{226, 56, 38, 28, 23, 19}, {226, 56, 38, 28, 23, 19}, {227, 56, 38, 28, 23, 19, 16},
		{228, 56, 38, 28, 23, 19, 16}, {228, 56, 38, 28, 23, 19, 16}, {229, 57, 38, 28, 23, 19, 17, 14},
		{230, 57, 38, 29, 23, 19, 17, 14}, {232, 57, 38, 29, 23, 19, 17, 15},
	},
	{
		{112, 45, 31}, {112, 45, 32}, {112, 45, 32}, {112, 45, 32, 25}, {112, 45, 32, 25}, {112, 45, 32, 25},
		{112, 45, 32, 25, 20}, {112, 45, 32, 25, 21}, {112, 45, 32, 25, 21}, {113, 45, 32, 25, 21, 17},
		{113, 45, 32, 25, 21, 18}, {113, 45, 32, 25, 21, 18}, {113, 45, 32, 25, 21, 18, 15},
		{113, 45, 32, 25, 21, 18, 15}, {114, 45, 32, 25, 21, 18, 15}, {114, 45, 33, 25, 21, 18, 15, 14},
		{114, 45, 33, 25, 21, 18, 16, 14}, {115, 46, 33, 25, 21, 18, 16, 14},
	},
	{
		{75, 37, 28}, {75, 37, 28}, {75, 38, 28}, {75, 38, 28, 22}, {75, 38, 28, 23}, {75, 38, 28, 23},
		{75, 38, 28, 23, 19}, {75, 38, 28, 23, 19}, {75, 38, 28, 23, 19}, {75, 38, 28, 23, 19, 16},
		{75, 38, 28, 23, 19, 16}, {75, 38, 28, 23, 19, 16}, {75, 38, 28, 23, 19, 17, 14},
		{76, 38, 29, 23, 19, 17, 14}, {76, 38, 29, 23, 19, 17, 15}, {76, 38, 29, 23, 19, 17, 15, 13},
		{76, 38, 29, 23, 19, 17, 15, 13}, {77, 38, 29, 23, 19, 17, 15, 13},
	},
	{
		{56, 32, 25}, {56, 32, 25}, {56, 32, 25}, {56, 32, 25, 20}, {56, 32, 25, 21}, {56, 32, 25, 21},
		{56, 32, 25, 21, 17}, {56, 32, 25, 21, 18}, {56, 32, 25, 21, 18}, {57, 32, 25, 21, 18, 15},
		{57, 32, 25, 21, 18, 15}, {57, 32, 25, 21, 18, 15}, {57, 33, 25, 21, 18, 15, 14},
		{57, 33, 25, 21, 18, 16, 14}, {57, 33, 25, 21, 18, 16, 14}, {57, 33, 26, 21, 18, 16, 14, 12},
		{57, 33, 26, 21, 18, 16, 14, 13}, {58, 33, 26, 21, 18, 16, 14, 13},
	},
}

// Config is the shape of one WHIR opening of a 2^LogN-word stack: per level, the
// log inverse rate of its Reed–Solomon code, how many variables it folds, and how
// many positions of its codeword are queried. Level 0 is the committed stack itself.
type Config struct {
	LogN        int
	LogInvRates []int
	Folds       []int
	Queries     []int
}

// Levels is the number of WHIR levels (committed codewords opened).
func (c *Config) Levels() int { return len(c.Folds) }

// MessageLog is the number of variables left after level l's folds.
func (c *Config) MessageLog(l int) int {
	n := c.LogN
	for i := 0; i <= l; i++ {
		n -= c.Folds[i]
	}
	return n
}

// BlockLog is log2 of the number of rows of level l's codeword (its Merkle leaves).
func (c *Config) BlockLog(l int) int { return c.MessageLog(l) + c.LogInvRates[l] }

// DeriveConfig builds the opening shape for a stack of 2^logN words at level-0 log
// inverse rate logInvRate: the fold/rate ladder, then the tabulated query counts.
func DeriveConfig(logN, logInvRate int) (*Config, error) {
	if logN < MinStackLog || logN > MaxStackLog || logInvRate < MinLogInvRate || logInvRate > MaxLogInvRate {
		return nil, fmt.Errorf("%w: stack log %d, log inverse rate %d", ErrShape, logN, logInvRate)
	}
	folds := []int{InitialFold}
	rates := []int{logInvRate}
	for remaining := logN - InitialFold; remaining > ResidualMaxLog; {
		shrink := laterDomainShrink
		if len(folds) == 1 {
			shrink = initialDomainShrink
		}
		rates = append(rates, rates[len(rates)-1]+folds[len(folds)-1]-shrink)
		f := min(SubsequentFold, remaining)
		remaining -= f
		folds = append(folds, f)
	}
	q := queryTable[logInvRate-1][logN-MinStackLog]
	if len(folds) < 2 || len(q) != len(folds) {
		return nil, fmt.Errorf("%w: ladder of %d levels against %d tabulated query counts", ErrShape, len(folds), len(q))
	}
	return &Config{LogN: logN, LogInvRates: rates, Folds: folds, Queries: append([]int(nil), q...)}, nil
}
