package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Run is one `leanpipe run` description.
type Run struct {
	// Flow is the proof flow; "blake2s-batch" is the one flow today.
	Flow string `json:"flow"`
	// Leaves is how many leaf proofs to produce.
	Leaves int `json:"leaves"`
	// Batch is the number of BLAKE2s compressions per leaf (generated inputs).
	Batch int `json:"batch"`
	// LogInvRate is the WHIR level-0 log inverse rate (1 = rate 1/2, the reference's).
	LogInvRate int `json:"log_inv_rate"`
	// Workers is the core count granted to the engine (0 = all cores).
	Workers int `json:"workers"`
	// Output is the directory proofs and the summary are written to.
	Output string `json:"output"`
	// Seed seeds generated inputs; leaf i uses Seed + i.
	Seed uint64 `json:"seed"`
	// Input, when set, is a blocks file (reference layout) every leaf proves instead of
	// generated compressions.
	Input string `json:"input,omitempty"`
	// Format is the proof form written: "wire" (default, the reference prover's) or "raw".
	Format string `json:"format"`
}

// Limits of the fields.
const (
	MaxLeaves  = 1 << 16
	MaxBatch   = 1 << 20
	MaxWorkers = 1024
)

// Defaults is the embedded default run: four leaves of 256 compressions at the
// reference's rate.
func Defaults() Run {
	return Run{Flow: "blake2s-batch", Leaves: 4, Batch: 256, LogInvRate: 1, Workers: 0, Output: "out", Seed: 1, Format: "wire"}
}

// ErrInvalid is wrapped by every config error.
var ErrInvalid = errors.New("config: invalid")

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
			return r, nil
		}
		return Run{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Run{}, fmt.Errorf("%w: more than one YAML document", ErrInvalid)
	}
	if len(doc.Content) == 0 {
		return r, nil
	}
	m := doc.Content[0]
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return r, nil
	}
	if m.Kind != yaml.MappingNode {
		return Run{}, errAt(m, "(document)", "want a mapping of keys to values")
	}
	seen := map[string]bool{}
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
			if err == nil && r.Flow != "blake2s-batch" {
				err = errAt(v, key, "unknown flow %q (known: blake2s-batch)", r.Flow)
			}
		case "leaves":
			r.Leaves, err = intIn(v, key, 1, MaxLeaves)
		case "batch":
			r.Batch, err = intIn(v, key, 1, MaxBatch)
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
		default:
			err = errAt(k, key, "unknown key (known: flow, leaves, batch, log_inv_rate, workers, output, seed, input, format)")
		}
		if err != nil {
			return Run{}, err
		}
	}
	return r, nil
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
