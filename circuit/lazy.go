package circuit

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/leanpipe/leanpipe/field"
)

// Lazy is a circuit's matrices as a verifier evaluates them: from the circuit's
// description (nothing built) at first, and from the compiled circuit once it is
// built. A process that evaluates the matrices many times (a service verifying
// proof after proof) builds the circuit in the background on its CompileAfter-th
// evaluation: a compiled walk is the faster, and its program stays in memory. A
// prover builds it on first need (Compiled). Both forms give the same values.
type Lazy struct {
	desc  *Described
	build func() *Circuit
	// peek, when set, returns the circuit if something else has built it (nil
	// otherwise); the Lazy then uses it without counting.
	peek func() *Circuit
	once sync.Once
	c    atomic.Pointer[Circuit]
	uses atomic.Int64
	// after, when nonzero, replaces CompileAfter (tests; negative: never).
	after int
}

// NewLazy returns the matrices of the circuit desc describes and build builds (it
// must build exactly that circuit). peek may be nil.
func NewLazy(desc *Described, build func() *Circuit, peek func() *Circuit) *Lazy {
	return &Lazy{desc: desc, build: build, peek: peek}
}

// Described is the circuit's description.
func (l *Lazy) Described() *Described { return l.desc }

// Compiled builds the circuit if it is not built (once, whoever asks first; a second
// caller waits for it) and returns it.
func (l *Lazy) Compiled() *Circuit {
	l.once.Do(func() {
		if l.c.Load() == nil {
			l.c.Store(l.build())
		}
	})
	return l.c.Load()
}

// Built returns the compiled circuit if it is built, else nil.
func (l *Lazy) Built() *Circuit {
	if c := l.c.Load(); c != nil {
		return c
	}
	if l.peek != nil {
		if c := l.peek(); c != nil {
			l.c.CompareAndSwap(nil, c)
			return c
		}
	}
	return nil
}

// Matrices returns the compiled circuit if it is built, else the Lazy itself, which
// evaluates from the description until the circuit is built.
func (l *Lazy) Matrices() Matrices {
	if c := l.Built(); c != nil {
		return c
	}
	return l
}

// LogSize is log2 of the block size.
func (l *Lazy) LogSize() int { return l.desc.LogSize() }

// ConstCol is the column pinned to 1.
func (l *Lazy) ConstCol() int { return l.desc.ConstCol() }

// BilinearPair is Matrices' BilinearPair on the form at hand.
func (l *Lazy) BilinearPair(e, w []field.E) (va, vb field.E) { return l.current().BilinearPair(e, w) }

// BilinearTensor is Matrices' BilinearTensor on the form at hand.
func (l *Lazy) BilinearTensor(e, w Tensor) (va, vb field.E) { return l.current().BilinearTensor(e, w) }

// current is the compiled circuit if it is built, else the description, counting the
// evaluation: the CompileAfter-th starts building the circuit in the background.
func (l *Lazy) current() Matrices {
	if c := l.Built(); c != nil {
		return c
	}
	n := l.after
	if n == 0 {
		n = CompileAfter()
	}
	if n > 0 && l.uses.Add(1) == int64(n) {
		go l.Compiled()
	}
	return l.desc
}

// CompileAfterEnv names the environment variable that sets CompileAfter.
const CompileAfterEnv = "LEANPIPE_COMPILE_AFTER"

// defaultCompileAfter is CompileAfter without the environment variable: a one-shot
// verification (one or two evaluations of each circuit) never builds.
const defaultCompileAfter = 3

var compileAfter = sync.OnceValues(func() (int, error) { return parseCompileAfter(os.Getenv(CompileAfterEnv)) })

// parseCompileAfter reads a $LEANPIPE_COMPILE_AFTER value ("" is the default).
func parseCompileAfter(v string) (int, error) {
	if v == "" {
		return defaultCompileAfter, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return defaultCompileAfter, fmt.Errorf("circuit: $%s=%q: want a count of evaluations, 0 for never", CompileAfterEnv, v)
	}
	return n, nil
}

// CompileAfter is how many evaluations of a Lazy's matrices start building its
// circuit: $LEANPIPE_COMPILE_AFTER, 0 for never (default 3; an invalid value is
// the default, and CheckCompileAfterEnv reports it).
func CompileAfter() int {
	n, _ := compileAfter()
	return n
}

// CheckCompileAfterEnv reports an invalid $LEANPIPE_COMPILE_AFTER.
func CheckCompileAfterEnv() error {
	_, err := compileAfter()
	return err
}
