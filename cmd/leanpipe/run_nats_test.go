package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/leanpipe/leanpipe/queue"
)

// testNATS is the URL of a JetStream server for one test: an embedded nats-server
// on 127.0.0.1 (random port, temporary store), or with $LEANPIPE_NATS_SERVER set a
// real server process (natsServerProcess).
func testNATS(t *testing.T) string {
	t.Helper()
	if os.Getenv(natsServerEnv) != "" {
		url, start := natsServerProcess(t)
		start()
		return url
	}
	return embeddedNATS(t, nil)
}

// embeddedNATS starts a JetStream server on 127.0.0.1 (random port, temporary
// store), with opt applied to its options when set, stopped when the test ends, and
// returns its client URL.
func embeddedNATS(t *testing.T, opt func(*server.Options)) string {
	t.Helper()
	o := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
	if opt != nil {
		opt(o)
	}
	s, err := server.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	t.Cleanup(s.Shutdown)
	return s.ClientURL()
}

// TestRunNATSStream runs `leanpipe run` with a `stream.source: nats` config in a
// child process, as a worker of the JetStream queue: `submit --fetch` gets one result
// line per job from it (ok for the good jobs, their fetched proofs verified; an error
// for a job over the config's max_n, terminated), the run keeps a local copy of each
// proof in its output, and on SIGTERM it exits 0 with the queue's counts in
// OUTPUT/metrics.json.
func TestRunNATSStream(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and a worker process")
	}
	url := testNATS(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cfg := filepath.Join(dir, "worker.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`output: %s
workers: 2
stream:
  source: nats
  url: %s
  in_flight: 2
  ack_wait: 5s
  max_deliver: 3
  max_n: 4096
  name: cfg-worker
`, out, url)), 0o644)

	cmd := cliCommand(t, "", "run", cfg, "--log-level", "info")
	se, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	errs := readLines(se)
	errs.waitFor(t, "the worker's start line", func(l string) bool { return strings.Contains(l, "serving the NATS queue") })

	const good = 5
	var jobs strings.Builder
	for i := range good {
		fmt.Fprintf(&jobs, `{"id":"r%d","n":%d,"seed":%d}`+"\n", i, 200+50*i, i+1)
	}
	jobs.WriteString(`{"id":"both","n":300,"formats":["wire","raw"]}` + "\n")
	jobs.WriteString(`{"id":"big","n":5000}` + "\n") // over the config's max_n: refused
	jobsFile := filepath.Join(dir, "jobs.jsonl")
	os.WriteFile(jobsFile, []byte(jobs.String()), 0o644)
	fetch := filepath.Join(dir, "fetched")
	var o, e strings.Builder
	code := executeIn([]string{"submit", "--nats", url, "--ack-wait", "5s", "--max-deliver", "3", "--fetch", fetch, "--timeout", "90s", jobsFile}, strings.NewReader(""), &o, &e)
	if code != 1 {
		t.Fatalf("submit: exit %d, want 1 (one job refused): %s\nstdout %s\nworker: %q", code, e.String(), o.String(), errs.snapshot())
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != good+2 {
		t.Fatalf("%d result lines for %d jobs:\n%s", len(lines), good+2, o.String())
	}
	ids := map[string]bool{}
	for _, l := range lines {
		var r struct {
			ID, Worker, Error string
			OK                bool
			Deliveries        int
			Also              map[string]string
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || ids[r.ID] {
			t.Fatalf("result %s (%v)", l, err)
		}
		ids[r.ID] = true
		if r.Worker != "cfg-worker" || r.Deliveries != 1 {
			t.Errorf("result %s: want worker cfg-worker (the config's name), one delivery", l)
		}
		if r.ID == "big" {
			if r.OK || !strings.Contains(r.Error, "4096") {
				t.Errorf("the job over max_n: %s; want an error naming the limit 4096", l)
			}
			continue
		}
		if !r.OK {
			t.Errorf("result %s: want ok", l)
			continue
		}
		// The fetched proof (verified by submit) and the run's local copy.
		for _, p := range []string{filepath.Join(fetch, r.ID+".proof.bin"), filepath.Join(out, r.ID+".proof.bin")} {
			if code, vout, _ := run(t, "verify", p); code != 0 || !strings.HasPrefix(vout, "accepted") {
				t.Errorf("verify %s: %d %q", p, code, vout)
			}
		}
		if r.ID == "both" {
			if _, err := os.Stat(filepath.Join(out, "both.proof.raw.bin")); err != nil || r.Also["raw"] == "" {
				t.Errorf("the two-form job: also %v, local raw copy: %v", r.Also, err)
			}
		}
	}

	cmd.Process.Signal(syscall.SIGTERM)
	<-errs.eof
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run after SIGTERM: %v; stderr %q", err, errs.snapshot())
	}
	var m queue.Metrics
	b, err := os.ReadFile(filepath.Join(out, "metrics.json"))
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("metrics.json: %v %s", err, b)
	}
	if m.Worker != "cfg-worker" || m.Pulled != good+2 || m.Acked != good+1 || m.Terminated != 1 || m.Published != good+2 || m.Nacked != 0 || m.Redeliveries != 0 {
		t.Errorf("metrics.json: %+v; want %d pulled, %d acked, 1 terminated, %d published", m, good+2, good+1, good+2)
	}
}

// selfSignedCert is a certificate for 127.0.0.1 that is its own CA, and its PEM.
func selfSignedCert(t *testing.T) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "leanpipe test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// A `stream.source: nats` config against a server that requires TLS: stream.tls_ca,
// relative to the config, is the CA the worker trusts (as serve's --tls-ca).
func TestRunNATSStreamTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and a worker process")
	}
	cert, caPEM := selfSignedCert(t)
	url := embeddedNATS(t, func(o *server.Options) {
		o.TLS, o.TLSTimeout = true, 5
		o.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, caPEM, 0o644)
	out := filepath.Join(dir, "out")
	cfg := filepath.Join(dir, "tls-worker.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("output: %s\nworkers: 2\nstream:\n  source: nats\n  url: %s\n  tls_ca: ca.pem\n  name: tls-worker\n", out, url)), 0o644)
	// Run from elsewhere: tls_ca is relative to the config, not the working directory.
	cmd := cliCommand(t, "", "run", cfg, "--log-level", "info")
	cmd.Dir = t.TempDir()
	se, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	errs := readLines(se)
	errs.waitFor(t, "the worker's start line", func(l string) bool { return strings.Contains(l, "serving the NATS queue") })

	jobsFile := filepath.Join(dir, "jobs.jsonl")
	os.WriteFile(jobsFile, []byte(`{"id":"t0","n":100}`+"\n"+`{"id":"t1","n":150}`+"\n"), 0o644)
	var o, e strings.Builder
	if code := executeIn([]string{"submit", "--nats", url, "--tls-ca", ca, "--timeout", "90s", jobsFile}, strings.NewReader(""), &o, &e); code != 0 {
		t.Fatalf("submit: exit %d: %s\nstdout %s\nworker: %q", code, e.String(), o.String(), errs.snapshot())
	}
	if lines := strings.Split(strings.TrimSpace(o.String()), "\n"); len(lines) != 2 || strings.Count(o.String(), `"worker":"tls-worker"`) != 2 {
		t.Fatalf("results over TLS:\n%s", o.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	<-errs.eof
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run after SIGTERM: %v; stderr %q", err, errs.snapshot())
	}
	for _, l := range errs.snapshot() {
		if strings.Contains(l, "BEGIN CERTIFICATE") {
			t.Errorf("the CA is in the log: %s", l)
		}
	}
}

// A `stream.source: nats` config's errors: a bad value names its key and line (exit
// 2, before any connection), as do a missing credentials or CA file.
func TestRunNATSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ doc, want string }{
		{"stream:\n  source: nats\n", "line 3: stream.url: required with stream.source nats"},
		{"stream:\n  source: nats\n  url: nats://127.0.0.1:1\n  ack_wait: 10ms\n", "line 5: stream.ack_wait: 10ms, want at least 1s"},
		{"stream:\n  source: nats\n  url: nats://127.0.0.1:1\n  path: jobs.jsonl\n", "line 5: stream.path: not used with stream.source nats"},
		{"stream:\n  source: nats\n  url: nats://127.0.0.1:1\n  creds: missing.creds\n", "stream.creds " + filepath.Join(dir, "missing.creds") + ": not a readable file"},
		{"stream:\n  source: nats\n  url: nats://127.0.0.1:1\n  tls_ca: missing-ca.pem\n", "stream.tls_ca " + filepath.Join(dir, "missing-ca.pem") + ": not a readable file"},
	} {
		cfg := filepath.Join(dir, "c.yaml")
		os.WriteFile(cfg, []byte("output: "+filepath.Join(dir, "out")+"\n"+c.doc), 0o644) // c.doc starts on line 2
		code, _, stderr := run(t, "run", cfg)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.doc, code, stderr, c.want)
		}
	}
}
