package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
)

func TestDefaultsAndOverrides(t *testing.T) {
	r, err := Parse([]byte("{}\n"))
	if err != nil || r != Defaults() {
		t.Fatalf("{}: %+v, %v", r, err)
	}
	for _, doc := range []string{"", "# only a comment\n", "~\n", "\n\n"} {
		if _, err := Parse([]byte(doc)); !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "or {} for the defaults") {
			t.Errorf("%q: %v, want the empty-config error", doc, err)
		}
	}
	r, err = Parse([]byte("flow: blake2s-batch\nleaves: 2\nbatch: 300\nlog_inv_rate: 2\nworkers: 1\noutput: o\nseed: 9\nformat: raw\ninput: x.blocks.bin\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Run{Flow: "blake2s-batch", Leaves: 2, Batch: 300, LogInvRate: 2, Workers: 1, Output: "o", Seed: 9, Format: "raw", Input: "x.blocks.bin", MemoryBudget: AutoBudget}
	if r != want {
		t.Fatalf("got %+v", r)
	}
}

// signers is the xmss-aggregate flow's name for batch, in either key order.
func TestSigners(t *testing.T) {
	for _, doc := range []string{"flow: xmss-aggregate\nsigners: 16\n", "signers: 16\nflow: xmss-aggregate\n", "flow: xmss-aggregate\nbatch: 16\n"} {
		r, err := Parse([]byte(doc))
		if err != nil || r.Flow != "xmss-aggregate" || r.Batch != 16 {
			t.Errorf("%q: %+v, %v", doc, r, err)
		}
	}
}

// memory_budget is auto unless given: a byte count, auto, or 0 for none.
func TestMemoryBudget(t *testing.T) {
	for doc, want := range map[string]int64{"leaves: 1\n": AutoBudget, "memory_budget: auto\n": AutoBudget, "memory_budget: 0\n": 0, "memory_budget: 3GiB\n": 3 << 30} {
		r, err := Parse([]byte(doc))
		if err != nil || r.MemoryBudget != want {
			t.Errorf("%q: budget %d, %v; want %d", doc, r.MemoryBudget, err, want)
		}
	}
	r, err := Parse([]byte("stream:\n  path: j\n"))
	if err != nil || r.Stream.MemoryBudget != AutoBudget {
		t.Fatalf("stream without memory_budget: %+v, %v", r.Stream, err)
	}
}

func TestStreamSection(t *testing.T) {
	r, err := Parse([]byte("output: o\nworkers: 2\nstream:\n  source: dir\n  path: jobs\n  poll: 50ms\n  in_flight: 3\n  memory_budget: 2GiB\n  grace: 5s\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := StreamDefaults()
	want.Source, want.Path, want.Poll, want.InFlight, want.MemoryBudget, want.Grace = "dir", "jobs", 50*time.Millisecond, 3, 2<<30, 5*time.Second
	if r.Stream == nil || *r.Stream != want || r.Workers != 2 {
		t.Fatalf("got %+v", r.Stream)
	}
	for s, n := range map[string]int64{"0": 0, "512MiB": 512 << 20, "1000": 1000, "3 KB": 3000} {
		if v, err := ParseBytes(s); err != nil || v != n {
			t.Fatalf("ParseBytes(%q) = %d, %v", s, v, err)
		}
	}
	if _, err := ParseBytes("-1"); err == nil {
		t.Fatal("negative byte count accepted")
	}
}

// stream.source nats takes the queue's settings as serve --nats's flags have them,
// with their defaults.
func TestStreamNATS(t *testing.T) {
	r, err := Parse([]byte("output: o\nstream:\n  source: nats\n  url: nats://q1:4222, q2:4222\n  in_flight: 3\n  grace: 5s\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := StreamDefaults()
	want.Source, want.URL, want.InFlight, want.Grace = "nats", "nats://q1:4222, q2:4222", 3, 5*time.Second
	if r.Stream == nil || *r.Stream != want || want.AckWait != 30*time.Second || want.MaxDeliver != 5 {
		t.Fatalf("got %+v, want %+v", r.Stream, want)
	}
	r, err = Parse([]byte("stream:\n  source: nats\n  url: tls://q:4222\n  ack_wait: 2s\n  max_deliver: 3\n  creds: w.creds\n  tls_ca: ca.pem\n  name: w1\n  memory_budget: 1GiB\n  max_n: 4096\n"))
	if err != nil {
		t.Fatal(err)
	}
	want = StreamDefaults()
	want.Source, want.URL, want.AckWait, want.MaxDeliver, want.Creds, want.TLSCA, want.Name, want.MemoryBudget, want.MaxN =
		"nats", "tls://q:4222", 2*time.Second, 3, "w.creds", "ca.pem", "w1", 1<<30, 4096
	if *r.Stream != want {
		t.Fatalf("got %+v, want %+v", r.Stream, want)
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
		{"stream: 3\n", "line 1: stream: want a mapping"},
		{"stream:\n  source: lines\n", "stream.path: required"},
		{"stream:\n  path: j\n  source: tcp\n", "line 3: stream.source: want lines, dir or nats"},
		{"stream:\n  source: nats\n", "line 2: stream.url: required with stream.source nats"},
		{"stream:\n  source: nats\n  url: \"\"\n", "line 3: stream.url: want NATS server URLs"},
		{"stream:\n  source: nats\n  url: 4222\n", "line 3: stream.url: want a string, got \"4222\""},
		{"stream:\n  source: nats\n  url: http://q:4222\n", "line 3: stream.url: \"http://q:4222\": scheme \"http\""},
		{"stream:\n  source: nats\n  url: nats://q:4222,,\n", "line 3: stream.url: want NATS server URLs"},
		{"stream:\n  source: nats\n  url: \"nats://\"\n", "line 3: stream.url: \"nats://\" is not a NATS server URL"},
		{"stream:\n  source: nats\n  url: q:4222\n  ack_wait: 500ms\n", "line 4: stream.ack_wait: 500ms, want at least 1s"},
		{"stream:\n  source: nats\n  url: q:4222\n  ack_wait: soon\n", "line 4: stream.ack_wait: want a duration"},
		{"stream:\n  source: nats\n  url: q:4222\n  max_deliver: 0\n", "line 4: stream.max_deliver: 0 is out of range [1, 100]"},
		{"stream:\n  source: nats\n  url: q:4222\n  max_deliver: 101\n", "line 4: stream.max_deliver: 101 is out of range [1, 100]"},
		{"stream:\n  source: nats\n  url: q:4222\n  in_flight: 2000\n", "line 4: stream.in_flight: 2000 is out of range [1, 1024]"},
		{"stream:\n  source: nats\n  url: q:4222\n  creds: \"\"\n", "line 4: stream.creds: must not be empty"},
		{"stream:\n  source: nats\n  url: q:4222\n  tls_ca: [a]\n", "line 4: stream.tls_ca: want a string, got a list"},
		{"stream:\n  source: nats\n  url: q:4222\n  path: jobs.jsonl\n", "line 4: stream.path: not used with stream.source nats"},
		{"stream:\n  url: q:4222\n  pending: 4\n  source: nats\n", "line 3: stream.pending: not used with stream.source nats"},
		{"stream:\n  source: nats\n  url: q:4222\n  poll: 1s\n", "line 4: stream.poll: not used with stream.source nats"},
		{"stream:\n  path: j\n  url: q:4222\n", "line 3: stream.url: only with stream.source nats (the source is lines)"},
		{"stream:\n  source: dir\n  path: j\n  max_deliver: 2\n", "line 4: stream.max_deliver: only with stream.source nats (the source is dir)"},
		{"leaves: 3\nstream:\n  source: nats\n  url: q:4222\n", "leaves: not used with stream"},
		{"stream:\n  path: j\n  poll: fast\n", "line 3: stream.poll: want a duration"},
		{"stream:\n  path: j\n  memory_budget: lots\n", "line 3: stream.memory_budget"},
		{"stream:\n  path: j\n  in_flight: 0\n", "line 3: stream.in_flight: 0 is out of range"},
		{"stream:\n  path: j\n  colour: red\n", "line 3: stream.colour: unknown key"},
		{"leaves: 3\nstream:\n  path: j\n", "leaves: not used with stream"},
		{"leaves: 2\nsigners: 4\n", "line 2: signers: only for the xmss-aggregate flow"},
		{"flow: xmss-aggregate\nbatch: 4\nsigners: 4\n", "line 3: signers: the same as batch"},
		{fmt.Sprintf("flow: xmss-aggregate\nsigners: %d\n", aggregate.MaxSigners+1), fmt.Sprintf("line 2: signers: %d is out of range [1, %d]", aggregate.MaxSigners+1, aggregate.MaxSigners)},
		{fmt.Sprintf("flow: xmss-aggregate\nbatch: %d\n", aggregate.MaxSigners+1), fmt.Sprintf("batch: %d is more than the xmss-aggregate flow's %d instances", aggregate.MaxSigners+1, aggregate.MaxSigners)},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc))
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want it to contain %q", c.doc, err, c.want)
		}
	}
}

// TestMarshalBudget: a run's and a stream's memory_budget is "auto" in JSON when it
// is derived from the machine, the bytes otherwise; the other keys are kept.
func TestMarshalBudget(t *testing.T) {
	r := Defaults()
	s := StreamDefaults()
	r.Stream = &s
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), `"memory_budget":"auto"`) != 2 || !strings.Contains(string(b), `"leaves":4`) || strings.Contains(string(b), "-1") {
		t.Fatalf("%s", b)
	}
	var back Run
	if err := json.Unmarshal(b, &back); err != nil || back.MemoryBudget != AutoBudget || back.Stream.MemoryBudget != AutoBudget || back.Leaves != 4 {
		t.Fatalf("read back: %+v %v", back, err)
	}
	r.MemoryBudget, s.MemoryBudget = 1<<30, 0
	b, _ = json.Marshal(r)
	if !strings.Contains(string(b), `"memory_budget":1073741824`) || !strings.Contains(string(b), `"memory_budget":0`) {
		t.Fatalf("%s", b)
	}
}
