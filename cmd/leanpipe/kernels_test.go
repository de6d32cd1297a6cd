package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/cpu"
)

// families are the kernel families the binary links, in the order the kernels line
// prints them.
var families = []string{"field", "ntt", "blake2s", "zerocheck", "reduce", "open", "circuit"}

// kernelsLine returns version's "kernels" line split into name → level.
func kernelsLine(t *testing.T, out string) map[string]string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "kernels "); ok {
			m := map[string]string{}
			var names []string
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				m[k] = v
				names = append(names, k)
			}
			if !slices.Equal(names, families) {
				t.Fatalf("kernels line names %v, want %v", names, families)
			}
			return m
		}
	}
	t.Fatalf("no kernels line in %q", out)
	return nil
}

// Every family the binary links reports, at every level this machine can run, the
// best kernel it has at or below that level, and version prints exactly that.
func TestKernelFamiliesFollowTheLevel(t *testing.T) {
	var names []string
	for _, f := range cpu.Families() {
		names = append(names, f.Name())
	}
	slices.Sort(names)
	want := slices.Clone(families)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("registered families %v, want %v", names, want)
	}
	for _, l := range cpu.Levels() {
		restore := cpu.SetLevel(l)
		_, out, _ := run(t, "version")
		line := kernelsLine(t, out)
		for _, f := range cpu.Families() {
			best := cpu.Portable
			for _, x := range f.Implemented() {
				if x <= l {
					best = x
				}
			}
			if f.Level() != best || line[f.Name()] != best.String() {
				restore()
				t.Fatalf("at %v: family %s runs %v and version says %s, want %v", l, f.Name(), f.Level(), line[f.Name()], best)
			}
		}
		restore()
	}
}

// The environment cap reaches every family, and an unknown cap is a usage error,
// in a fresh process (the cap is read once at start-up).
func TestSIMDCapInChild(t *testing.T) {
	child := func(cap string) (int, string, string) {
		c := cliCommand(t, "", "version")
		c.Env = append(c.Env, cpu.EnvCap+"="+cap)
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return c.ProcessState.ExitCode(), out.String(), errb.String()
	}
	for _, cap := range []string{"portable", "generic", "pclmul", "avx2"} {
		code, out, errs := child(cap)
		if code != 0 {
			t.Fatalf("%s=%s: exit %d: %s", cpu.EnvCap, cap, code, errs)
		}
		c, _ := cpu.ParseLevel(cap)
		for name, lv := range kernelsLine(t, out) {
			got, err := cpu.ParseLevel(lv)
			if err != nil || got > c {
				t.Fatalf("%s=%s: family %s runs %s", cpu.EnvCap, cap, name, lv)
			}
			if c == cpu.Portable && got != cpu.Portable {
				t.Fatalf("%s=%s: family %s runs %s", cpu.EnvCap, cap, name, lv)
			}
		}
	}
	code, _, errs := child("avx9000")
	if code != 2 || !strings.Contains(errs, cpu.EnvCap) || !strings.Contains(errs, "avx9000") {
		t.Fatalf("unknown cap: exit %d, stderr %q", code, errs)
	}
}

// version reports the huge-page advice as the process sees it: advised by default
// where the kernel has transparent huge pages, off under LEANPIPE_HUGEPAGES=off (read
// once at start-up, so each case is a fresh process).
func TestVersionHugePagesInChild(t *testing.T) {
	line := func(env ...string) string {
		c := cliCommand(t, "", "version")
		c.Env = append(c.Env, env...)
		out, err := c.Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(l, "hugepages "); ok {
				return rest
			}
		}
		t.Fatalf("version printed no hugepages line:\n%s", out)
		return ""
	}
	def := line("LEANPIPE_HUGEPAGES=")
	if buffers.HugePages() != strings.HasPrefix(def, "advised") {
		t.Errorf("default: version says %q, this process's advice is %v", def, buffers.HugePages())
	}
	if got := line("LEANPIPE_HUGEPAGES=off"); def != "unsupported" && !strings.HasPrefix(got, "off") {
		t.Errorf("LEANPIPE_HUGEPAGES=off: version says %q", got)
	}
	if got := line("GODEBUG=disablethp=1"); def != "unsupported" && !strings.HasPrefix(got, "off") {
		t.Errorf("GODEBUG=disablethp=1: version says %q", got)
	}
}

// An invalid $LEANPIPE_COMPILE_AFTER or $LEANPIPE_CIRCUIT_CACHE is a usage error
// naming it (read once at start-up, so each case is a fresh process); a valid one
// runs.
func TestCircuitEnvsInChild(t *testing.T) {
	for _, c := range []struct {
		env, v string
		code   int
	}{{circuit.CompileAfterEnv, "x", 2}, {circuit.CompileAfterEnv, "-2", 2}, {circuit.CompileAfterEnv, "0", 0}, {circuit.CompileAfterEnv, "4", 0},
		{circuit.CacheEnv, "maybe", 2}, {circuit.CacheEnv, "off", 0}} {
		cmd := cliCommand(t, "", "version")
		cmd.Env = append(cmd.Env, c.env+"="+c.v)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code || (code == 2 && !strings.Contains(stderr.String(), c.env)) {
			t.Errorf("%s=%s: exit %d, stderr %q", c.env, c.v, code, stderr.String())
		}
	}
}

// The compiled-circuit cache changes no proof byte: an xmss-aggregate leaf proved in
// a fresh process with an empty cache (the circuit built and stored), again with the
// cache filled (the circuit mapped from it), and with the cache off gives the same
// file; the filled cache holds the circuit.
func TestCircuitCacheSameProof(t *testing.T) {
	if testing.Short() {
		t.Skip("three leaf proofs in child processes")
	}
	dir := t.TempDir()
	sigs, _ := signaturesFile(t, dir, "sigs.json", 3, 83)
	cache := filepath.Join(dir, "cache")
	prove := func(name string, env ...string) []byte {
		out := filepath.Join(dir, name)
		c := cliCommand(t, "", "prove", "--signatures", sigs, "--out", out, "--workers", "2")
		c.Env = append(c.Env, append([]string{"LEANPIPE_CACHE_DIR=" + cache}, env...)...)
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	built := prove("built.bin")
	files, _ := filepath.Glob(filepath.Join(cache, "circuits", "xmss-verify-*.circuit"))
	if len(files) != 1 {
		t.Fatalf("the cache holds %v after a proof", files)
	}
	if mapped := prove("mapped.bin"); !bytes.Equal(mapped, built) {
		t.Fatal("the proof with the cached circuit differs")
	}
	if off := prove("off.bin", circuit.CacheEnv+"=off"); !bytes.Equal(off, built) {
		t.Fatal("the proof without the cache differs")
	}
}
