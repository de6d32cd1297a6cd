package graph

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/semaphore"
)

// Scheduler grants cores to stages from a weighted semaphore of Cores units. A stage
// asking for [min, max] gets as many as are free up to max, and waits for min when
// fewer are free. Grants never exceed Cores.
type Scheduler struct {
	cores int64
	sem   *semaphore.Weighted
	mu    sync.Mutex
	inUse int64
	peak  int64
}

// NewScheduler returns a scheduler over cores ≥ 1 cores.
func NewScheduler(cores int) *Scheduler {
	if cores < 1 {
		panic(fmt.Sprintf("graph: scheduler needs at least one core, got %d", cores))
	}
	return &Scheduler{cores: int64(cores), sem: semaphore.NewWeighted(int64(cores))}
}

// Cores is the number of cores the scheduler hands out.
func (s *Scheduler) Cores() int { return int(s.cores) }

// Acquire grants between lo and hi cores (hi = 0: up to all), blocking until lo are
// free or ctx ends. lo and hi are clamped to the scheduler's size.
func (s *Scheduler) Acquire(ctx context.Context, lo, hi int) (int, error) {
	want := int64(hi)
	if want <= 0 || want > s.cores {
		want = s.cores
	}
	need := min(max(int64(lo), 1), want)
	// Take the free cores greedily, at most want and at least need.
	for k := want; k > need; k-- {
		if s.sem.TryAcquire(k) {
			s.note(k)
			return int(k), nil
		}
	}
	if err := s.sem.Acquire(ctx, need); err != nil {
		return 0, err
	}
	s.note(need)
	return int(need), nil
}

func (s *Scheduler) note(k int64) {
	s.mu.Lock()
	s.inUse += k
	s.peak = max(s.peak, s.inUse)
	s.mu.Unlock()
}

// Release returns k cores granted by Acquire.
func (s *Scheduler) Release(k int) {
	s.mu.Lock()
	s.inUse -= int64(k)
	s.mu.Unlock()
	s.sem.Release(int64(k))
}

// Peak is the largest number of cores granted at once so far.
func (s *Scheduler) Peak() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int(s.peak)
}
