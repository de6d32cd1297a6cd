package config

import (
	"errors"
	"strings"
	"testing"
)

func TestDefaultsAndOverrides(t *testing.T) {
	r, err := Parse(nil)
	if err != nil || r != Defaults() {
		t.Fatalf("empty config: %+v, %v", r, err)
	}
	r, err = Parse([]byte("flow: blake2s-batch\nleaves: 2\nbatch: 300\nlog_inv_rate: 2\nworkers: 1\noutput: o\nseed: 9\nformat: raw\ninput: x.blocks.bin\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Run{Flow: "blake2s-batch", Leaves: 2, Batch: 300, LogInvRate: 2, Workers: 1, Output: "o", Seed: 9, Format: "raw", Input: "x.blocks.bin"}
	if r != want {
		t.Fatalf("got %+v", r)
	}
}

func TestErrorsNameKeyAndLine(t *testing.T) {
	cases := []struct{ doc, want string }{
		{"leaves: 2\ncolour: red\n", "line 2: colour: unknown key"},
		{"leaves: two\n", "line 1: leaves: want an integer, got the string \"two\""},
		{"batch: 1.5\n", "line 1: batch: want an integer"},
		{"leaves: 0\n", "line 1: leaves: 0 is out of range"},
		{"\nlog_inv_rate: 5\n", "line 2: log_inv_rate: 5 is out of range [1, 4]"},
		{"flow: keccak\n", "line 1: flow: unknown flow \"keccak\""},
		{"format: json\n", "line 1: format: want wire or raw"},
		{"output: [a, b]\n", "line 1: output: want a string, got a list"},
		{"leaves: 1\nleaves: 2\n", "line 2: leaves: key given twice"},
		{"- a\n- b\n", "want a mapping"},
		{"leaves: [\n", "config: invalid"},
		{"workers: -1\n", "line 1: workers: -1 is out of range"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc))
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want it to contain %q", c.doc, err, c.want)
		}
	}
}
