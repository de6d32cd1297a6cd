package cpu

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestParseLevel(t *testing.T) {
	for l := Portable; l < numLevels; l++ {
		got, err := ParseLevel(l.String())
		if err != nil || got != l {
			t.Fatalf("ParseLevel(%q) = %v, %v", l.String(), got, err)
		}
	}
	if got, err := ParseLevel("generic"); err != nil || got != Portable {
		t.Fatalf("generic: %v, %v", got, err)
	}
	if _, err := ParseLevel("avx3"); !errors.Is(err, ErrLevel) || !strings.Contains(err.Error(), "avx512-gfni") {
		t.Fatalf("unknown level: %v", err)
	}
}

func TestCapLevel(t *testing.T) {
	for _, c := range []struct {
		hw   Level
		env  string
		want Level
		bad  bool
	}{
		{AVX512GFNI, "", AVX512GFNI, false},
		{AVX512GFNI, "avx2", AVX2, false},
		{AVX512GFNI, "generic", Portable, false},
		{PCLMUL, "avx512-gfni", PCLMUL, false}, // a cap never raises the level
		{AVX2VPCLMUL, "fast", AVX2VPCLMUL, true},
	} {
		got, err := capLevel(c.hw, c.env)
		if got != c.want || (err != nil) != c.bad {
			t.Fatalf("capLevel(%v, %q) = %v, %v", c.hw, c.env, got, err)
		}
		if c.bad && !strings.Contains(err.Error(), EnvCap) {
			t.Fatalf("error does not name %s: %v", EnvCap, err)
		}
	}
}

// The environment this test runs in must name a level (CI runs the suite capped).
func TestEnvironmentCap(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatal(err)
	}
	if Detected() > Hardware() {
		t.Fatalf("detected %v above the hardware's %v", Detected(), Hardware())
	}
	if env := os.Getenv(EnvCap); env != "" {
		c, _ := ParseLevel(env)
		if Detected() > c {
			t.Fatalf("%s=%s but detected %v", EnvCap, env, Detected())
		}
	}
	t.Logf("hardware %v, detected %v, features %v", Hardware(), Detected(), Features())
}

func TestFamilyLevels(t *testing.T) {
	f := NewFamily("test-family", PCLMUL, AVX2VPCLMUL)
	if g := NewFamily("test-family", AVX2VPCLMUL, PCLMUL, Portable); g != f {
		t.Fatal("the same family registered twice gave two values")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a family re-registered with other levels did not panic")
		}
	}()
	for _, l := range Levels() {
		restore := SetLevel(l)
		want := Portable
		for _, x := range []Level{PCLMUL, AVX2VPCLMUL} {
			if x <= l {
				want = x
			}
		}
		if f.Level() != want {
			restore()
			t.Fatalf("at %v the family runs %v, want %v", l, f.Level(), want)
		}
		restore()
	}
	if !strings.Contains(Kernels("test-family"), "test-family="+f.Level().String()) {
		t.Fatalf("Kernels() = %q", Kernels())
	}
	NewFamily("test-family", AVX2)
}

func TestSetLevelAboveDetectedPanics(t *testing.T) {
	if Detected() == AVX512GFNI {
		t.Skip("nothing above the detected level")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	SetLevel(Detected() + 1)
}
