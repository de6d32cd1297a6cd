package queue

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/nats-io/nats-server/v2/server"
)

// TestResultOverMaxPayload: a job whose error result is larger than the server's
// max payload (its error echoes 4 KiB of '<', each escaped to six bytes in JSON) is
// answered with a short error result naming the sizes, logged, and terminated: no
// redelivery, nothing left in the queue.
func TestResultOverMaxPayload(t *testing.T) {
	if serverBin != "" {
		t.Skip("sets the embedded server's max payload")
	}
	var mu sync.Mutex
	var logged []string
	o := Options{AckWait: 300 * time.Millisecond, Worker: "w", Logf: func(f string, a ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(f, a...))
		mu.Unlock()
	}}
	ts := startServer(t, o, func(so *server.Options) { so.MaxPayload = 8 << 10 })
	nc, jsW := ts.connect(t, "w")
	w := startWorker(t, jsW, newEngine(t), o, nil)
	sub := resultsOf(t, nc, "big")
	job := `{"id":"big","n":8,"` + strings.Repeat("<", 5000) + `":1}`
	if _, err := jsW.Publish(context.Background(), JobsSubject+flows.DefaultName, []byte(job)); err != nil {
		t.Fatal(err)
	}
	m, err := sub.NextMsg(20 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseResult(m.Data)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || !strings.Contains(r.Error, "is over the NATS server's max payload (8192 bytes)") || len(m.Data) > 4<<10 {
		t.Fatalf("result (%d bytes): %s", len(m.Data), m.Data)
	}
	time.Sleep(4 * o.AckWait) // a redelivery would have come by now
	if m, err := sub.NextMsg(10 * time.Millisecond); err == nil {
		t.Errorf("second result: %.200s", m.Data)
	}
	if n := streamMsgs(t, jsW, JobsStream); n != 0 {
		t.Errorf("%d jobs left in the queue", n)
	}
	if mt := w.stop(t); mt.Terminated != 1 || mt.Unfinished != 0 {
		t.Errorf("worker: %d terminated, %d unfinished", mt.Terminated, mt.Unfinished)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) != 1 || !strings.Contains(logged[0], "job big: its result") {
		t.Errorf("logged %q", logged)
	}
}
