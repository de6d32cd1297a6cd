package circuit

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// randomCircuit is describeRandom's circuit of seed, its description and a build
// function counting its calls.
func describedRandom(seed uint64, builds *int) (*Described, func() *Circuit) {
	const logSize = 12
	d := NewDescribed("random", logSize, 3, func(ev *Evaluator) { describeRandom[EvalWire](ev, logSize, seed) })
	return d, func() *Circuit {
		*builds++
		b := NewBuilder("random", logSize, 3)
		describeRandom(b, logSize, seed)
		return b.Compile()
	}
}

func sameCircuit(t *testing.T, got, want *Circuit) {
	t.Helper()
	if got.name != want.name || got.logSize != want.logSize || got.constCol != want.constCol || got.nregs != want.nregs ||
		got.nRows != want.nRows || got.useful != want.useful || !slices.Equal(got.code, want.code) || !slices.Equal(got.isRow, want.isRow) ||
		!slices.Equal(got.inputs, want.inputs) || !slices.Equal(got.regions, want.regions) || !slices.Equal(got.nonRow, want.nonRow) {
		t.Fatal("the decoded circuit differs from the encoded one")
	}
}

// A circuit's file form decodes to the same circuit.
func TestCircuitFileRoundTrip(t *testing.T) {
	var builds int
	_, build := describedRandom(11, &builds)
	c := build()
	file := c.appendBinary(nil)
	back, err := decodeCircuit(file)
	if err != nil {
		t.Fatal(err)
	}
	sameCircuit(t, back, c)
	// A buffer whose program is not 8-byte aligned.
	odd := append([]byte{0}, file...)[1:]
	if back, err = decodeCircuit(odd); err != nil {
		t.Fatal(err)
	}
	sameCircuit(t, back, c)
	// Nothing of the circuit refers to the file (the cache unmaps it once decoded).
	fresh := c.appendBinary(nil)
	if back, err = decodeCircuit(fresh); err != nil {
		t.Fatal(err)
	}
	for i := range fresh {
		fresh[i] ^= 0x5a
	}
	sameCircuit(t, back, c)
}

// The cache builds once and reads back after; a corrupted, truncated or stale file
// (another circuit under the name) costs a build and is replaced, and what is
// returned always gives the description's values.
func TestCachedCircuit(t *testing.T) {
	r := testrand.New(t)
	dir := t.TempDir()
	var builds int
	desc, build := describedRandom(12, &builds)
	want := loadOrBuild(dir, desc, build)
	if builds != 1 {
		t.Fatalf("%d builds on an empty cache", builds)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		t.Fatalf("%d files in the cache, want 1", len(files))
	}
	path := files[0]
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sameCircuit(t, loadOrBuild(dir, desc, build), want)
	if builds != 1 {
		t.Fatal("a cached circuit was built again")
	}
	e, w := randTensor(r, 6, 12), randTensor(r, 6, 12)
	wa, wb := desc.BilinearTensor(e, w)
	// check loads: the circuit returned gives the description's values; a build
	// replaces the file with the build's. It reports whether it built.
	check := func(what string) bool {
		t.Helper()
		before := builds
		c := loadOrBuild(dir, desc, build)
		if a, b := c.BilinearTensor(e, w); a != wa || b != wb {
			t.Fatalf("%s: the returned circuit gives other values", what)
		}
		if builds == before {
			return false
		}
		if now, _ := os.ReadFile(path); !slices.Equal(now, good) {
			t.Fatalf("%s: the file was not replaced by the build's", what)
		}
		return true
	}
	// A changed program byte is refused by its ranges or its values, unless the
	// program it makes gives the same matrices (x and y of a sum exchanged, say):
	// nearly every one is refused. Truncations and changed metadata always are.
	rebuilt := 0
	for k := range 60 {
		bad := slices.Clone(good)
		switch {
		case k < 10:
			bad = bad[:r.IntN(len(bad))]
		default:
			bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		}
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if check("a corrupted file") {
			rebuilt++
		} else if k < 10 {
			t.Fatal("a truncated file was used")
		}
	}
	if rebuilt < 50 {
		t.Fatalf("%d of 60 corrupted files refused", rebuilt)
	}
	for _, at := range []int{len(good) - 1, len(cacheMagic) + 1, len(good) - sha256.Size - 2} {
		bad := slices.Clone(good)
		bad[at] ^= 1
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if !check("a changed checksum or metadata byte") {
			t.Fatalf("a file changed at byte %d of %d was used", at, len(good))
		}
	}
	// Another circuit's valid file under this one's name: its checksum holds, its
	// values do not.
	var other int
	_, build2 := describedRandom(13, &other)
	if err := os.WriteFile(path, build2().appendBinary(nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if !check("another circuit's file") {
		t.Fatal("another circuit's file was used")
	}
	// Without a directory nothing is read or written.
	loadOrBuild("", desc, build)
	if builds == 0 {
		t.Fatal("unreachable")
	}
}

// A program naming a register past the count, or a column past the block, does not
// decode even with a valid checksum.
func TestCircuitFileChecksRanges(t *testing.T) {
	var builds int
	_, build := describedRandom(14, &builds)
	for _, edit := range []struct {
		what string
		op   uint32
		f    func(c *Circuit, in instr) instr
	}{
		{"a register past the count", opXor, func(c *Circuit, in instr) instr {
			return packInstr(step{opXor, in.dst(), uint32(c.nregs), in.y()})
		}},
		{"a column past the block", opCol, func(c *Circuit, in instr) instr { return instr(uint64(in) | 1<<49) }},
	} {
		c := build()
		i := slices.IndexFunc(c.code, func(in instr) bool { return in.op() == edit.op })
		c.code[i] = edit.f(c, c.code[i])
		if _, err := decodeCircuit(c.appendBinary(nil)); err == nil {
			t.Fatalf("%s decoded", edit.what)
		}
	}
}

func TestParseCacheEnv(t *testing.T) {
	for v, want := range map[string]bool{"": true, "on": true, "off": false, "0": false} {
		if got, err := parseCacheEnv(v); got != want || err != nil {
			t.Fatalf("%q: %v %v", v, got, err)
		}
	}
	if _, err := parseCacheEnv("maybe"); err == nil {
		t.Fatal("an unknown value is accepted")
	}
}
