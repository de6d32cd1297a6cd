package circuit

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/internal/cachedir"
)

// Compiled circuits kept on disk between runs. Building a large circuit (recording
// its program and compiling it) takes a second or more; reading it back takes a
// fraction of that. A file is trusted for nothing: it is decoded with every field
// checked against the block (each instruction's registers, rows and columns in
// range, so that no walk can read or write outside its buffers), and the circuit it
// holds must give the description's values at a fresh random point (its matrices
// are then the description's, but with probability about 2^-60). A file that fails
// either check, is missing or unreadable is replaced by a fresh build. So a
// corrupted or stale cache costs a build, never a wrong circuit.

// CacheEnv names the environment variable that turns the compiled-circuit cache off
// ("off", "0", "false", "no"); on by default, in cachedir.Dir()'s circuits folder.
const CacheEnv = "LEANPIPE_CIRCUIT_CACHE"

var cacheOn = sync.OnceValues(func() (bool, error) { return parseCacheEnv(os.Getenv(CacheEnv)) })

func parseCacheEnv(v string) (bool, error) {
	switch v {
	case "", "on", "1", "true", "yes":
		return true, nil
	case "off", "0", "false", "no":
		return false, nil
	}
	return true, fmt.Errorf("circuit: $%s=%q: want on or off", CacheEnv, v)
}

// CheckCacheEnv reports an invalid $LEANPIPE_CIRCUIT_CACHE.
func CheckCacheEnv() error {
	_, err := cacheOn()
	return err
}

// cacheDir is where compiled circuits are kept, "" for nowhere.
func cacheDir() string {
	if on, _ := cacheOn(); !on {
		return ""
	}
	d := cachedir.Dir()
	if d == "" {
		return ""
	}
	return filepath.Join(d, "circuits")
}

// Cached returns build going through the on-disk cache of compiled circuits: the
// circuit desc describes is read from the cache when a checked copy is there, else
// built and stored (a failure to store is not an error: the circuit is built).
func Cached(desc *Described, build func() *Circuit) func() *Circuit {
	return func() *Circuit { return loadOrBuild(cacheDir(), desc, build) }
}

func loadOrBuild(dir string, desc *Described, build func() *Circuit) *Circuit {
	if dir == "" {
		return build()
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d-%d.circuit", desc.name, desc.logSize, desc.constCol))
	if b, err := readCacheFile(path); err == nil {
		c, err := decodeChecked(b, desc)
		releaseCacheFile(b)
		if err == nil {
			return c
		}
	}
	c := build()
	if err := os.MkdirAll(dir, 0o755); err == nil {
		_ = atomicfile.Write(path, c.appendBinary(nil))
	}
	return c
}

// decodeChecked decodes b and checks the circuit against desc (a walk of a decoded
// program that panics makes it invalid too).
func decodeChecked(b []byte, desc *Described) (c *Circuit, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("circuit: a cached circuit's walk: %v", r)
		}
	}()
	c, err = decodeCircuitIn(b, true)
	if err != nil {
		return nil, err
	}
	if c.name != desc.name || c.logSize != desc.logSize || c.constCol != desc.constCol {
		return nil, fmt.Errorf("circuit: cached %s (2^%d, constant %d) for %s (2^%d, constant %d)", c.name, c.logSize, c.constCol, desc.name, desc.logSize, desc.constCol)
	}
	e, w := randomTensor(desc.logSize), randomTensor(desc.logSize)
	ga, gb := c.BilinearTensor(e, w)
	wa, wb := desc.BilinearTensor(e, w)
	if ga != wa || gb != wb {
		return nil, fmt.Errorf("circuit: cached %s gives other values than its description", c.name)
	}
	// The checked program moves out of the file's mapping (released after) to
	// memory of its own, outside the Go heap, on huge pages, kept for the process
	// as the circuit is: the walks stream the program (110 MB for the
	// xmss-aggregate circuit) once per walk, and read from the file's page-cache
	// pages, a warm verification of a 200-signature aggregate at one worker took
	// 34–42 ms in one state of the machine, 25–28 in another; from this copy 25–29
	// in both (docs/recursion.md §6.23).
	if len(c.code) > 0 {
		code := buffers.Permanent[instr](len(c.code))
		copy(code, c.code)
		c.code = code
	}
	return c, nil
}

// randomTensor is tensor weights of 2^logSize entries from fresh randomness (a
// 64-entry low factor when the block has that many columns).
func randomTensor(logSize int) Tensor {
	low := min(6, logSize)
	t := Tensor{Low: make([]field.E, 1<<low), High: make([]field.E, logSize-low)}
	for _, v := range [][]field.E{t.Low, t.High} {
		for i := range v {
			var b [24]byte
			_, _ = rand.Read(b[:])
			v[i] = field.E{C0: field.K(binary.LittleEndian.Uint64(b[0:])), C1: field.K(binary.LittleEndian.Uint64(b[8:])), C2: field.K(binary.LittleEndian.Uint64(b[16:]))}
		}
	}
	return t
}

// cacheMagic starts a cached circuit's file (the version of its layout).
const cacheMagic = "leanpipe-circuit-v1\n"

// appendBinary appends the circuit's file form: the magic, the name, logSize,
// constCol, the register count and the program's length, zero bytes up to a
// multiple of 8, the program (so that a mapped file's program is checked in place), the
// rows (a bitset over the columns), the inputs and the regions, then the SHA-256 of
// all but the program (an accidental change of the metadata makes the file invalid;
// the program is checked by its ranges and its values). The derived fields (rows
// counted, useful, the columns without a row) are recomputed on decoding. b's length
// must be a multiple of 8.
func (c *Circuit) appendBinary(b []byte) []byte {
	start := len(b)
	b = append(b, cacheMagic...)
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	num := func(v int) { b = binary.AppendUvarint(b, uint64(v)) }
	str(c.name)
	num(c.logSize)
	num(c.constCol)
	num(c.nregs)
	num(len(c.code))
	for (len(b)-start)%8 != 0 {
		b = append(b, 0)
	}
	h := sha256.New()
	h.Write(b[start:])
	codeEnd := len(b) + 8*len(c.code)
	if len(c.code) > 0 {
		b = append(b, unsafe.Slice((*byte)(unsafe.Pointer(&c.code[0])), 8*len(c.code))...)
	}
	bits := make([]byte, (len(c.isRow)+7)/8)
	for i, r := range c.isRow {
		if r {
			bits[i/8] |= 1 << (i % 8)
		}
	}
	b = append(b, bits...)
	num(len(c.inputs))
	for _, in := range c.inputs {
		num(in)
	}
	num(len(c.regions))
	for _, r := range c.regions {
		str(r.Name)
		num(r.Base)
		num(r.Len)
	}
	h.Write(b[codeEnd:])
	return h.Sum(b)
}

var errCacheFile = errors.New("circuit: not a cached circuit")

// decodeCircuit reads appendBinary's form, checking every field against the block.
// Nothing of the circuit it returns refers to file.
func decodeCircuit(file []byte) (*Circuit, error) { return decodeCircuitIn(file, false) }

// decodeCircuitIn is decodeCircuit, but with inPlace the program is read in place
// when file holds it 8-byte aligned (the circuit then refers to file).
func decodeCircuitIn(file []byte, inPlace bool) (*Circuit, error) {
	if !bytes.HasPrefix(file, []byte(cacheMagic)) || len(file) < len(cacheMagic)+sha256.Size {
		return nil, errCacheFile
	}
	body, sum := file[:len(file)-sha256.Size], file[len(file)-sha256.Size:]
	b := body[len(cacheMagic):]
	bad := func(what string) error { return fmt.Errorf("%w: %s", errCacheFile, what) }
	num := func(limit uint64) (int, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > limit {
			return 0, false
		}
		b = b[n:]
		return int(v), true
	}
	str := func() (string, bool) {
		n, ok := num(1 << 10)
		if !ok || n > len(b) {
			return "", false
		}
		s := string(b[:n])
		b = b[n:]
		return s, true
	}
	c := &Circuit{}
	var ok bool
	if c.name, ok = str(); !ok {
		return nil, bad("name")
	}
	if c.logSize, ok = num(instrColBits); !ok || c.logSize < 1 {
		return nil, bad("size")
	}
	size := 1 << c.logSize
	if c.constCol, ok = num(uint64(size - 1)); !ok {
		return nil, bad("constant column")
	}
	if c.nregs, ok = num(maxRegs); !ok || c.nregs < 1 {
		return nil, bad("registers")
	}
	n, ok := num(uint64(len(b) / 8))
	if !ok {
		return nil, bad("program length")
	}
	head := len(body) - len(b)
	for head%8 != 0 {
		if len(b) == 0 || b[0] != 0 {
			return nil, bad("padding")
		}
		b, head = b[1:], head+1
	}
	if len(b) < 8*n {
		return nil, bad("program length")
	}
	h := sha256.New()
	h.Write(body[:head])
	h.Write(b[8*n:])
	if !bytes.Equal(h.Sum(nil), sum) {
		return nil, fmt.Errorf("%w: its checksum does not match", errCacheFile)
	}
	if n > 0 {
		if p := unsafe.Pointer(&b[0]); inPlace && uintptr(p)%8 == 0 {
			c.code = unsafe.Slice((*instr)(p), n)
		} else {
			c.code = buffers.MakeUninit[instr](n)
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&c.code[0])), 8*n), b[:8*n])
		}
		for i, in := range c.code {
			if !in.valid(size, c.nregs) {
				return nil, bad(fmt.Sprintf("instruction %d", i))
			}
		}
	}
	b = b[8*n:]
	if len(b) < (size+7)/8 {
		return nil, bad("rows")
	}
	c.isRow = make([]bool, size)
	for i := range c.isRow {
		c.isRow[i] = b[i/8]>>(i%8)&1 == 1
	}
	b = b[(size+7)/8:]
	k, ok := num(uint64(size))
	if !ok {
		return nil, bad("inputs")
	}
	c.inputs = make([]int, k)
	for i := range c.inputs {
		if c.inputs[i], ok = num(uint64(size - 1)); !ok || (i > 0 && c.inputs[i] <= c.inputs[i-1]) {
			return nil, bad("inputs")
		}
	}
	if k, ok = num(uint64(size)); !ok {
		return nil, bad("regions")
	}
	c.regions = make([]Region, k)
	for i := range c.regions {
		r := &c.regions[i]
		if r.Name, ok = str(); ok {
			if r.Base, ok = num(uint64(size)); ok {
				r.Len, ok = num(uint64(size - r.Base))
			}
		}
		if !ok {
			return nil, bad("regions")
		}
	}
	if len(b) != 0 {
		return nil, bad("trailing bytes")
	}
	c.countRows()
	return c, nil
}

// valid reports whether the instruction names only registers below nregs (register
// 0 is never written) and rows and columns below size.
func (in instr) valid(size, nregs int) bool {
	switch in.op() {
	case opCol:
		return in.dst() >= 1 && int(in.dst()) < nregs && int(in.col()) < size && uint64(in)>>50 == 0
	case opXor:
		return in.dst() >= 1 && int(in.dst()) < nregs && int(in.x()) < nregs && int(in.y()) < nregs
	case opRow:
		return int(in.dst()) < size && int(in.x()) < nregs && int(in.y()) < nregs
	}
	return false
}
