package main

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/internal/rusage"
)

// stageRSS follows the resident memory while proofs run and keeps each stage's
// peak: a sample as every stage starts (closing the one before it), one every
// millisecond in between, and one as the proof ends, each charged to the stage
// running at the time. It reads /proc/self/statm (Linux); where that cannot be
// read it records nothing.
type stageRSS struct {
	mu   sync.Mutex
	cur  string
	peak map[string]int64
	stop chan struct{}
	done sync.WaitGroup
}

// residentBytes is the process's resident set size now (0 when unknown).
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

func newStageRSS() *stageRSS {
	s := &stageRSS{peak: map[string]int64{}, stop: make(chan struct{})}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-tick.C:
				s.note(residentBytes())
			}
		}
	}()
	return s
}

// note charges rss to the stage running.
func (s *stageRSS) note(rss int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != "" && rss > s.peak[s.cur] {
		s.peak[s.cur] = rss
	}
}

// switchTo charges a sample to the stage ending and to name, which starts.
func (s *stageRSS) switchTo(name string) {
	rss := residentBytes()
	s.note(rss)
	s.mu.Lock()
	s.cur = name
	s.mu.Unlock()
	s.note(rss)
}

// proofDone closes the last stage of a proof.
func (s *stageRSS) proofDone() { s.switchTo("") }

// take returns each stage's peak so far and starts afresh.
func (s *stageRSS) take() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.peak
	s.peak = map[string]int64{}
	return p
}

// close stops the sampling and returns each stage's peak.
func (s *stageRSS) close() map[string]int64 {
	close(s.stop)
	s.done.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// stageCPU notes the process's CPU time at every stage start and at the end of the
// proof, giving each stage's CPU time in a process that runs one proof at a time
// (bench). The stage-start hook may be called from the scheduler's goroutines.
type stageCPU struct {
	mu   sync.Mutex
	cur  string
	at   time.Duration
	took map[string]time.Duration
}

// reset starts a proof.
func (s *stageCPU) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur, s.took = "", map[string]time.Duration{}
}

// switchTo ends the current stage and starts name ("" after the last one).
func (s *stageCPU) switchTo(name string) {
	now := rusage.Process()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != "" {
		s.took[s.cur] += now - s.at
	}
	s.cur, s.at = name, now
}
