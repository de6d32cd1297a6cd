package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"go.yaml.in/yaml/v3"
)

// Run is one `leanpipe run` description.
type Run struct {
	// Flow is the proof flow, a name in the flows registry (flows.Names).
	Flow string `json:"flow"`
	// Leaves is how many leaf proofs to produce.
	Leaves int `json:"leaves"`
	// Batch is the number of instances per leaf (generated inputs): BLAKE2s
	// compressions for the batch flow, signers for xmss-aggregate (whose configs may
	// call it "signers").
	Batch int `json:"batch"`
	// LogInvRate is the WHIR level-0 log inverse rate (1 = rate 1/2, the reference's).
	LogInvRate int `json:"log_inv_rate"`
	// Workers is the core count granted to the engine (0 = all cores).
	Workers int `json:"workers"`
	// Output is the directory proofs and the summary are written to.
	Output string `json:"output"`
	// Seed seeds generated inputs; leaf i uses Seed + i.
	Seed uint64 `json:"seed"`
	// Input, when set, is an input file in the flow's layout (for the batch flow, a
	// blocks file in the reference layout) every leaf proves instead of generated
	// instances.
	Input string `json:"input,omitempty"`
	// Format is the proof form written: "wire" (default, the reference prover's) or "raw".
	Format string `json:"format"`
	// MemoryBudget bounds the estimated memory of one proof in bytes (AutoBudget:
	// derived from the machine; 0: none); a leaf needing more is refused before any
	// work. A stream's own memory_budget, when given, overrides it.
	MemoryBudget int64 `json:"memory_budget"`
	// Stream, when set, proves a stream of jobs (as `leanpipe serve` does) instead of
	// generated leaves.
	Stream *Stream `json:"stream,omitempty"`
	// Tree, when set, cuts one signature set into leaves and merges them into one
	// proof (tree.go); Batch is then the whole set's size.
	Tree *Tree `json:"tree,omitempty"`
}

// Stream is the stream source of a run: jobs in serve's JSON-lines form, from a
// file, from job files in a watched directory, or from the shared JetStream queue
// (as `leanpipe serve --nats` takes them).
type Stream struct {
	// Source is "lines" (Path is a JSON-lines file), "dir" (Path is a directory
	// polled for NAME.job files) or "nats" (URL is the NATS server: the run is a
	// worker of the JetStream queue until a stop signal).
	Source string `json:"source"`
	Path   string `json:"path"`
	// Poll is the directory polling interval.
	Poll time.Duration `json:"poll"`
	// InFlight proofs run at once; Pending jobs are held before their results leave
	// (0 = 4 × InFlight). With source nats, InFlight also bounds the pulled,
	// unacked jobs and Pending is not used.
	InFlight int `json:"in_flight"`
	Pending  int `json:"pending"`
	// MemoryBudget bounds the estimated memory of running proofs in bytes
	// (AutoBudget: the run's memory_budget; 0 = none).
	MemoryBudget int64 `json:"memory_budget"`
	// Grace is how long running proofs may finish after a stop signal.
	Grace time.Duration `json:"grace"`
	// MaxN is the most compressions a job may ask for.
	MaxN int `json:"max_n"`

	// The queue settings of source nats, as serve's flags have them: URL is the
	// server list (--nats, comma-separated), AckWait a pulled job's lease
	// (--ack-wait), MaxDeliver the deliveries a job may be proved before it goes to
	// the dead-letter subject (--max-deliver), Creds a NATS credentials file
	// (--creds) and TLSCA the CA of the server's certificate (--tls-ca; it turns TLS
	// on), both relative to the config; Name names the worker in results and
	// metrics (--name; default host-pid).
	URL        string        `json:"url,omitempty"`
	AckWait    time.Duration `json:"ack_wait,omitempty"`
	MaxDeliver int           `json:"max_deliver,omitempty"`
	Creds      string        `json:"creds,omitempty"`
	TLSCA      string        `json:"tls_ca,omitempty"`
	Name       string        `json:"name,omitempty"`
}

// StreamDefaults are the stream settings a `stream:` section starts from.
func StreamDefaults() Stream {
	return Stream{Source: "lines", Poll: 200 * time.Millisecond, InFlight: 2, MemoryBudget: AutoBudget, Grace: 30 * time.Second, MaxN: MaxBatch,
		AckWait: 30 * time.Second, MaxDeliver: 5}
}

// Stream sources.
const (
	SourceLines = "lines"
	SourceDir   = "dir"
	SourceNATS  = "nats"
)

// natsKeys are the stream keys of source nats only; notNATSKeys those it does not
// use.
var (
	natsKeys    = []string{"url", "ack_wait", "max_deliver", "creds", "tls_ca", "name"}
	notNATSKeys = []string{"path", "poll", "pending"}
)

// AutoBudget is the memory_budget "auto": derived from the machine's memory, its
// cgroup limit and the address-space limit, less a margin.
const AutoBudget = -1

// Limits of the fields.
const (
	MaxLeaves  = 1 << 16
	MaxBatch   = 1 << 20
	MaxWorkers = 1024
)

// Defaults is the embedded default run: four leaves of 256 compressions at the
// reference's rate.
func Defaults() Run {
	return Run{Flow: flows.DefaultName, Leaves: 4, Batch: 256, LogInvRate: 1, Workers: 0, Output: "out", Seed: 1, Format: "wire", MemoryBudget: AutoBudget}
}

// ErrInvalid is wrapped by every config error.
var ErrInvalid = errors.New("config: invalid")

// ErrEmpty is the error of an empty config (no document, or only comments): a run
// says what it wants, if only {} for the defaults.
var ErrEmpty = fmt.Errorf("%w: empty config; give at least one key, or {} for the defaults", ErrInvalid)

func errAt(n *yaml.Node, key, format string, a ...any) error {
	return fmt.Errorf("%w: line %d: %s: %s", ErrInvalid, n.Line, key, fmt.Sprintf(format, a...))
}

// Load reads and checks a config file.
func Load(path string) (Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Run{}, fmt.Errorf("config: %w", err)
	}
	r, err := Parse(b)
	if err != nil {
		return Run{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Parse checks a YAML document and fills the omitted keys from Defaults.
func Parse(b []byte) (Run, error) {
	r := Defaults()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Run{}, ErrEmpty
		}
		return Run{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Run{}, fmt.Errorf("%w: more than one YAML document", ErrInvalid)
	}
	if len(doc.Content) == 0 {
		return Run{}, ErrEmpty
	}
	m := doc.Content[0]
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return Run{}, ErrEmpty
	}
	if m.Kind != yaml.MappingNode {
		return Run{}, errAt(m, "(document)", "want a mapping of keys to values")
	}
	seen := map[string]bool{}
	var signers *yaml.Node // the signers key, when given
	var tree *yaml.Node    // the tree key, when given
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := k.Value
		if seen[key] {
			return Run{}, errAt(k, key, "key given twice")
		}
		seen[key] = true
		var err error
		switch key {
		case "flow":
			r.Flow, err = str(v, key)
			if err == nil {
				if _, lerr := flows.Lookup(r.Flow); lerr != nil || r.Flow == "" {
					err = errAt(v, key, "unknown flow %q (registered: %s)", r.Flow, strings.Join(flows.Names(), ", "))
				}
			}
		case "leaves":
			r.Leaves, err = intIn(v, key, 1, MaxLeaves)
		case "batch":
			r.Batch, err = intIn(v, key, 1, MaxBatch)
		case "signers":
			r.Batch, err = intIn(v, key, 1, aggregate.MaxSigners)
			signers = k
		case "log_inv_rate":
			r.LogInvRate, err = intIn(v, key, 1, 4)
		case "workers":
			r.Workers, err = intIn(v, key, 0, MaxWorkers)
		case "output":
			r.Output, err = str(v, key)
			if err == nil && r.Output == "" {
				err = errAt(v, key, "must not be empty")
			}
		case "seed":
			var s int
			s, err = intIn(v, key, 0, 1<<62)
			r.Seed = uint64(s)
		case "input":
			r.Input, err = str(v, key)
		case "format":
			r.Format, err = str(v, key)
			if err == nil && r.Format != "wire" && r.Format != "raw" {
				err = errAt(v, key, "want wire or raw, got %q", r.Format)
			}
		case "memory_budget":
			r.MemoryBudget, err = byteCount(v, key)
		case "stream":
			r.Stream, err = parseStream(v)
		case "tree":
			r.Tree, err = parseTree(v)
			tree = k
		default:
			err = errAt(k, key, "unknown key (known: flow, leaves, batch, signers, log_inv_rate, workers, output, seed, input, format, memory_budget, stream, tree)")
		}
		if err != nil {
			return Run{}, err
		}
	}
	if signers != nil {
		switch {
		case seen["batch"]:
			return Run{}, errAt(signers, "signers", "the same as batch; give one of them")
		case r.Flow != aggregate.FlowName:
			return Run{}, errAt(signers, "signers", "only for the %s flow (the %s flow's instances per leaf are its batch)", aggregate.FlowName, r.Flow)
		}
	}
	if tree != nil {
		if err := checkTree(r, seen, tree); err != nil {
			return Run{}, err
		}
	}
	if f, err := flows.Lookup(r.Flow); err == nil && r.Batch > f.MaxN() {
		return Run{}, fmt.Errorf("%w: batch: %d is more than the %s flow's %d instances", ErrInvalid, r.Batch, r.Flow, f.MaxN())
	}
	if r.Stream != nil {
		for _, key := range []string{"leaves", "batch", "signers", "seed", "input", "format", "log_inv_rate"} {
			if seen[key] {
				return Run{}, fmt.Errorf("%w: %s: not used with stream (each job names its own)", ErrInvalid, key)
			}
		}
	}
	return r, nil
}

func parseStream(m *yaml.Node) (*Stream, error) {
	if m.Kind != yaml.MappingNode {
		return nil, errAt(m, "stream", "want a mapping, got %s", describe(m))
	}
	s := StreamDefaults()
	keys := map[string]*yaml.Node{} // the keys given, by name
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := "stream." + k.Value
		if keys[k.Value] != nil {
			return nil, errAt(k, key, "key given twice")
		}
		keys[k.Value] = k
		var err error
		switch k.Value {
		case "source":
			s.Source, err = str(v, key)
			if err == nil && s.Source != SourceLines && s.Source != SourceDir && s.Source != SourceNATS {
				err = errAt(v, key, "want lines, dir or nats, got %q", s.Source)
			}
		case "path":
			s.Path, err = str(v, key)
		case "poll":
			s.Poll, err = duration(v, key)
		case "in_flight":
			s.InFlight, err = intIn(v, key, 1, 1024)
		case "pending":
			s.Pending, err = intIn(v, key, 0, 1<<16)
		case "memory_budget":
			s.MemoryBudget, err = byteCount(v, key)
		case "grace":
			s.Grace, err = duration(v, key)
		case "max_n":
			s.MaxN, err = intIn(v, key, 1, MaxBatch)
		case "url":
			s.URL, err = str(v, key)
			if err == nil {
				err = checkURLs(v, key, s.URL)
			}
		case "ack_wait":
			s.AckWait, err = duration(v, key)
			if err == nil && s.AckWait < time.Second {
				err = errAt(v, key, "%v, want at least 1s", s.AckWait)
			}
		case "max_deliver":
			s.MaxDeliver, err = intIn(v, key, 1, 100)
		case "creds":
			s.Creds, err = nonEmpty(v, key)
		case "tls_ca":
			s.TLSCA, err = nonEmpty(v, key)
		case "name":
			s.Name, err = nonEmpty(v, key)
		default:
			err = errAt(k, key, "unknown key (known: source, path, poll, in_flight, pending, memory_budget, grace, max_n; with source nats: url, ack_wait, max_deliver, creds, tls_ca, name)")
		}
		if err != nil {
			return nil, err
		}
	}
	if s.Source == SourceNATS {
		for _, key := range notNATSKeys {
			if k := keys[key]; k != nil {
				return nil, errAt(k, "stream."+key, "not used with stream.source nats")
			}
		}
		if s.URL == "" {
			return nil, errAt(m, "stream.url", "required with stream.source nats: the NATS server URL(s), comma-separated")
		}
		return &s, nil
	}
	for _, key := range natsKeys {
		if k := keys[key]; k != nil {
			return nil, errAt(k, "stream."+key, "only with stream.source nats (the source is %s)", s.Source)
		}
	}
	if s.Path == "" {
		return nil, errAt(m, "stream.path", "required: the JSON-lines file or the job directory")
	}
	return &s, nil
}

// checkURLs checks a NATS server list: comma-separated URLs (nats://, tls://,
// ws://, wss://) or bare HOST:PORT, as the NATS client takes them.
func checkURLs(v *yaml.Node, key, list string) error {
	for _, u := range strings.Split(list, ",") {
		u = strings.TrimSpace(u)
		if u == "" {
			return errAt(v, key, "want NATS server URLs such as nats://host:4222 (comma-separated), got %q", list)
		}
		full := u
		if !strings.Contains(u, "://") {
			full = "nats://" + u
		}
		p, err := url.Parse(full)
		if err != nil || p.Host == "" {
			return errAt(v, key, "%q is not a NATS server URL (want nats://host:4222 or host:4222)", u)
		}
		switch p.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return errAt(v, key, "%q: scheme %q, want nats, tls, ws or wss", u, p.Scheme)
		}
	}
	return nil
}

func nonEmpty(v *yaml.Node, key string) (string, error) {
	s, err := str(v, key)
	if err == nil && s == "" {
		err = errAt(v, key, "must not be empty")
	}
	return s, err
}

func duration(v *yaml.Node, key string) (time.Duration, error) {
	s, err := str(v, key)
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, errAt(v, key, "want a duration such as 200ms or 30s, got %q", s)
	}
	return d, nil
}

func byteCount(v *yaml.Node, key string) (int64, error) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!str") {
		return 0, errAt(v, key, "want a byte count such as 2GiB, or auto, got %s", describe(v))
	}
	if v.Value == "auto" {
		return AutoBudget, nil
	}
	n, err := ParseBytes(v.Value)
	if err != nil {
		return 0, errAt(v, key, "%v", err)
	}
	return n, nil
}

// ParseBytes reads a byte count: an integer with an optional unit (B, KB, MB, GB,
// KiB, MiB, GiB).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a byte count (e.g. 2GiB, 512MiB, 1000000)", s)
	}
	return v * mult, nil
}

func str(v *yaml.Node, key string) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return "", errAt(v, key, "want a string, got %s", describe(v))
	}
	return v.Value, nil
}

func intIn(v *yaml.Node, key string, lo, hi int) (int, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
		return 0, errAt(v, key, "want an integer, got %s", describe(v))
	}
	x, err := strconv.ParseInt(v.Value, 0, 64)
	if err != nil {
		return 0, errAt(v, key, "want an integer, got %q", v.Value)
	}
	if x < int64(lo) || x > int64(hi) {
		return 0, errAt(v, key, "%d is out of range [%d, %d]", x, lo, hi)
	}
	return int(x), nil
}

func describe(v *yaml.Node) string {
	switch v.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch v.Tag {
	case "!!str":
		return fmt.Sprintf("the string %q", v.Value)
	case "!!float":
		return fmt.Sprintf("the number %s", v.Value)
	case "!!bool":
		return fmt.Sprintf("the boolean %s", v.Value)
	case "!!null":
		return "nothing"
	}
	return fmt.Sprintf("%q", v.Value)
}
