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
//
// The grants a Graph makes also name the core slots they hold (0..Cores-1, the
// scheduler's units, not CPUs): a stage's Span lists them in Cores, so a trace can
// draw one row per slot and no two stages ever share a slot at the same time.
type Scheduler struct {
	cores int64
	sem   *semaphore.Weighted
	mu    sync.Mutex
	inUse int64
	peak  int64
	slots []bool // slot held by a named grant
}

// NewScheduler returns a scheduler over cores ≥ 1 cores.
func NewScheduler(cores int) *Scheduler {
	if cores < 1 {
		panic(fmt.Sprintf("graph: scheduler needs at least one core, got %d", cores))
	}
	return &Scheduler{cores: int64(cores), sem: semaphore.NewWeighted(int64(cores)), slots: make([]bool, cores)}
}

// Cores is the number of cores the scheduler hands out.
func (s *Scheduler) Cores() int { return int(s.cores) }

// Acquire grants between lo and hi cores (hi = 0: up to all), blocking until lo are
// free or ctx ends. lo and hi are clamped to the scheduler's size.
func (s *Scheduler) Acquire(ctx context.Context, lo, hi int) (int, error) {
	return s.acquire(ctx, lo, hi)
}

// acquireSlots is Acquire naming the core slots granted (release them with
// releaseSlots). Named and unnamed grants share the semaphore, so the named ones
// never hold more slots than there are.
func (s *Scheduler) acquireSlots(ctx context.Context, lo, hi int) ([]int, error) {
	k, err := s.acquire(ctx, lo, hi)
	if err != nil {
		return nil, err
	}
	ids := make([]int, 0, k)
	s.mu.Lock()
	for i := range s.slots {
		if len(ids) == k {
			break
		}
		if !s.slots[i] {
			s.slots[i] = true
			ids = append(ids, i)
		}
	}
	s.mu.Unlock()
	if len(ids) != k {
		panic(fmt.Sprintf("graph: scheduler granted %d cores but only %d slots are free", k, len(ids)))
	}
	return ids, nil
}

// releaseSlots returns a grant made by acquireSlots.
func (s *Scheduler) releaseSlots(ids []int) {
	s.mu.Lock()
	for _, i := range ids {
		s.slots[i] = false
	}
	s.mu.Unlock()
	s.Release(len(ids))
}

func (s *Scheduler) acquire(ctx context.Context, lo, hi int) (int, error) {
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
