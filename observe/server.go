package observe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ErrAddr marks an address flag that cannot be served.
var ErrAddr = errors.New("observe: bad address")

// ResolveAddr turns an address flag into a listen address: a bare port ("9090" or
// ":9090") binds 127.0.0.1; "HOST:PORT" is taken as given. With loopback set, HOST
// must be localhost or a loopback IP. Errors wrap ErrAddr.
func ResolveAddr(addr string, loopback bool) (string, error) {
	if addr == "" {
		return "", fmt.Errorf("%w: empty", ErrAddr)
	}
	hp := addr
	if !strings.Contains(hp, ":") {
		hp = ":" + hp
	}
	host, port, err := net.SplitHostPort(hp)
	if err != nil {
		return "", fmt.Errorf("%w: %q: want PORT or HOST:PORT", ErrAddr, addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return "", fmt.Errorf("%w: %q: port %q, want 0..65535", ErrAddr, addr, port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if loopback && host != "localhost" {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return "", fmt.Errorf("%w: %q: host %s is not a loopback address (127.0.0.1, ::1 or localhost)", ErrAddr, addr, host)
		}
	}
	return net.JoinHostPort(host, port), nil
}

// Server is an HTTP endpoint started by ServeMetrics or ServeDebug.
type Server struct {
	srv   *http.Server
	ln    net.Listener
	ready atomic.Bool
	done  chan struct{}
}

func serve(addr string, h http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	s := &Server{ln: ln, done: make(chan struct{}), srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// ServeMetrics listens on addr (a listen address, see ResolveAddr) and serves
//
//	/metrics  m in the Prometheus text format
//	/healthz  200 while the process runs
//	/readyz   200 while SetReady(true) is in force (the process takes jobs), else 503
//
// The server starts not ready.
func ServeMetrics(addr string, m *Metrics) (*Server, error) {
	mux := http.NewServeMux()
	var s *Server
	mux.Handle("/metrics", promhttp.HandlerFor(m.Registry(), promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !s.ready.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready: not taking jobs")
			return
		}
		fmt.Fprintln(w, "ready")
	})
	s, err := serve(addr, mux)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ServeDebug listens on addr and serves net/http/pprof under /debug/pprof/. The
// caller keeps addr on loopback (ResolveAddr with loopback set).
func ServeDebug(addr string) (*Server, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return serve(addr, mux)
}

// Addr is the address the server listens on (with the port chosen for port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// SetReady sets what /readyz answers.
func (s *Server) SetReady(ready bool) { s.ready.Store(ready) }

// Close stops the server, letting requests in progress finish for up to a second.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	<-s.done
	return err
}
