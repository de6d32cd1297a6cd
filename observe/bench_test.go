package observe

import (
	"context"
	"io"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
)

// prove14 makes an engine on two cores and a warm 2^14 request.
func prove14(b *testing.B) (*flows.Engine, flows.Request) {
	b.Helper()
	e, err := flows.NewEngine(flows.EngineOptions{Cores: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Close)
	in, err := flows.Default().Generate(1<<14, 1)
	if err != nil {
		b.Fatal(err)
	}
	req := flows.Request{Input: in}
	if _, err := e.Prove(context.Background(), req); err != nil { // warm the caches and pools
		b.Fatal(err)
	}
	return e, req
}

// result is what a stream hands the observers for a proof.
func result(p flows.Proved, start time.Time) stream.Result {
	return stream.Result{ID: "bench", OK: true, Flow: p.Flow, N: 1 << 14, Bytes: len(flows.EncodeProof(p.Proof, "wire")),
		MS: float64(time.Since(start).Microseconds()) / 1e3, Proved: p}
}

// BenchmarkProve14 proves 2^14 compressions on two cores, alternating a plain
// proof and an observed one: the latter adds everything observability does per
// proof (the metrics' and the trace's Proved hooks, one /metrics scrape, the
// proof's trace events encoded as JSON). Alternating pairs keeps the machine's load
// drift out of the comparison. It reports the medians of plain-ms and observed-ms
// per proof, of the observability work alone (obs-µs, timed inside each observed
// proof), and obs-% = obs-µs over plain-ms: the overhead. The plain/observed
// difference is within the noise of proving; obs-% is the measured cost.
func BenchmarkProve14(b *testing.B) {
	if testing.Short() {
		b.Skip("proves 2^14 compressions")
	}
	e, req := prove14(b)
	m := NewMetrics()
	m.WatchEngine(e)
	tr := NewTrace()
	h := promhttp.HandlerFor(m.Registry(), promhttp.HandlerOpts{})
	var plain, observed, obs []float64
	for b.Loop() {
		t := time.Now()
		if _, err := e.Prove(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		plain = append(plain, float64(time.Since(t).Microseconds()))

		start := time.Now()
		p, err := e.Prove(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		r := result(p, start)
		t = time.Now()
		m.Proved(r, start)
		tr.Proved(r, start)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/metrics", nil))
		one := NewTrace()
		one.Proved(r, start)
		io.Discard.Write(one.JSON())
		obs = append(obs, float64(time.Since(t).Nanoseconds())/1e3)
		observed = append(observed, float64(time.Since(start).Microseconds()))
	}
	b.ReportMetric(median(plain)/1e3, "plain-ms")
	b.ReportMetric(median(observed)/1e3, "observed-ms")
	b.ReportMetric(median(obs), "obs-µs")
	b.ReportMetric(100*median(obs)/median(plain), "obs-%")
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkHooks measures the work observability adds to one proof, on the spans
// of a real 2^14 proof: the two Proved hooks, a /metrics scrape (the Go and process
// collectors included) and writing one proof's trace events. Divide by the
// ms/proof of BenchmarkProve14/plain for the overhead.
func BenchmarkHooks(b *testing.B) {
	if testing.Short() {
		b.Skip("proves 2^14 compressions once")
	}
	e, req := prove14(b)
	start := time.Now()
	p, err := e.Prove(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	r := result(p, start)
	m := NewMetrics()
	m.WatchEngine(e)
	ctx := stream.WithObserver(context.Background(), m)
	pr := stream.NewProver(ctx, e, stream.Options{}) // attached, as in serve
	defer close(pr.In())
	b.Run("proved", func(b *testing.B) {
		tr := NewTrace()
		for b.Loop() {
			m.Proved(r, start)
			tr.Proved(r, start)
		}
	})
	b.Run("scrape", func(b *testing.B) {
		h := promhttp.HandlerFor(m.Registry(), promhttp.HandlerOpts{})
		for b.Loop() {
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/metrics", nil))
		}
	})
	b.Run("trace-json-per-proof", func(b *testing.B) {
		tr := NewTrace()
		for range 100 {
			tr.Proved(r, start)
		}
		for b.Loop() {
			io.Discard.Write(tr.JSON())
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/proof")
	})
}
