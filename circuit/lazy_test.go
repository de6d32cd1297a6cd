package circuit

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// A Lazy evaluates from the description until its after-th evaluation, which builds
// the circuit in the background; it then evaluates the compiled circuit, with the
// same values throughout. With after < 0 it never builds; Compiled builds at once.
func TestLazyBuildsAfterUses(t *testing.T) {
	r := testrand.New(t)
	const logSize = 12
	var builds atomic.Int32
	newLazy := func(after int) *Lazy {
		d := NewDescribed("random", logSize, 3, func(ev *Evaluator) { describeRandom[EvalWire](ev, logSize, 7) })
		l := NewLazy(d, func() *Circuit {
			builds.Add(1)
			b := NewBuilder("random", logSize, 3)
			describeRandom(b, logSize, 7)
			return b.Compile()
		}, nil)
		l.after = after
		return l
	}
	e, w := randTensor(r, 6, logSize), randTensor(r, 6, logSize)
	l := newLazy(3)
	wa, wb := l.desc.BilinearTensor(e, w)
	for i := range 2 {
		if m := l.Matrices(); m != Matrices(l) {
			t.Fatalf("evaluation %d: Matrices is %T before the build", i, m)
		}
		if a, b := l.BilinearTensor(e, w); a != wa || b != wb {
			t.Fatalf("evaluation %d differs from the description", i)
		}
		if l.Built() != nil || builds.Load() != 0 {
			t.Fatalf("built after %d evaluations, want 3", i+1)
		}
	}
	if a, b := l.BilinearTensor(e, w); a != wa || b != wb {
		t.Fatal("the third evaluation differs")
	}
	// The third evaluation started the build: it completes without another call.
	deadline := time.Now().Add(20 * time.Second)
	for l.Built() == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	c := l.Built()
	if builds.Load() != 1 || c == nil || l.Matrices() != Matrices(c) {
		t.Fatalf("%d builds, Matrices %T after the third evaluation", builds.Load(), l.Matrices())
	}
	if a, b := l.Matrices().BilinearTensor(e, w); a != wa || b != wb {
		t.Fatal("the compiled circuit's values differ from the description's")
	}
	ed, wd := make([]field.E, 1<<logSize), make([]field.E, 1<<logSize)
	e.Fill(ed)
	w.Fill(wd)
	if a, b := l.BilinearPair(ed, wd); a != wa || b != wb {
		t.Fatal("BilinearPair differs after the build")
	}

	never := newLazy(-1)
	for range 5 {
		never.BilinearTensor(e, w)
	}
	if never.Built() != nil || builds.Load() != 1 {
		t.Fatal("a Lazy with after < 0 built")
	}
	// peek: a circuit built elsewhere is used without counting or building.
	built := never.Compiled()
	other := NewLazy(never.desc, func() *Circuit { t.Fatal("peeked Lazy built"); return nil }, func() *Circuit { return built })
	if other.Matrices() != Matrices(built) {
		t.Fatal("a Lazy ignores what peek returns")
	}
}

func TestParseCompileAfter(t *testing.T) {
	for _, c := range []struct {
		v    string
		want int
		ok   bool
	}{{"", defaultCompileAfter, true}, {"0", 0, true}, {"5", 5, true}, {"-1", defaultCompileAfter, false}, {"x", defaultCompileAfter, false}} {
		n, err := parseCompileAfter(c.v)
		if n != c.want || (err == nil) != c.ok {
			t.Fatalf("%q: %d, %v", c.v, n, err)
		}
	}
}

// A checker runs a circuit's code as a builder does, records nothing, and panics
// where the builder panics: a row outside the block, a column read before its row.
func TestChecker(t *testing.T) {
	const logSize = 12
	c := NewChecker("random", logSize, 3)
	describeRandom(c, logSize, 9)
	if c.steps != 0 || len(c.code) != 0 {
		t.Fatalf("a checker recorded %d steps", c.steps)
	}
	panics := func(what string, f func(b *Builder)) {
		t.Helper()
		for _, b := range []*Builder{NewBuilder("x", 6, 0), NewChecker("x", 6, 0)} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: no panic (checker %v)", what, b.checkOnly)
					}
				}()
				f(b)
			}()
		}
	}
	panics("a row outside the block", func(b *Builder) { b.Row(64, b.One(), b.One()) })
	panics("a column read before its row", func(b *Builder) { b.Col(5) })
	panics("Compile on a checker", func(b *Builder) {
		if !b.checkOnly {
			panic("the builder compiles")
		}
		b.Compile()
	})
}
