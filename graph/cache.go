package graph

import (
	"context"
	"fmt"
	"sync"

	"github.com/dgraph-io/ristretto/v2"
)

// ShapeCache keeps shape-keyed precomputation (NTT tables, WHIR configurations,
// circuit tables) across proofs, so repeated proofs of one shape skip it. It is
// backed by ristretto with a cost budget in bytes; concurrent requests for a missing
// key build it once.
type ShapeCache struct {
	c        *ristretto.Cache[string, any]
	mu       sync.Mutex
	building map[string]*sync.WaitGroup
	stats    struct {
		sync.Mutex
		hits, misses int64
	}
}

// NewShapeCache returns a cache holding at most maxBytes of precomputation.
func NewShapeCache(maxBytes int64) (*ShapeCache, error) {
	c, err := ristretto.NewCache(&ristretto.Config[string, any]{
		NumCounters: 1 << 12,
		MaxCost:     maxBytes,
		BufferItems: 64,
	})
	if err != nil {
		return nil, fmt.Errorf("graph: shape cache: %w", err)
	}
	return &ShapeCache{c: c, building: map[string]*sync.WaitGroup{}}, nil
}

// Close releases the cache.
func (s *ShapeCache) Close() { s.c.Close() }

// Stats returns the hits and misses so far.
func (s *ShapeCache) Stats() (hits, misses int64) {
	s.stats.Lock()
	defer s.stats.Unlock()
	return s.stats.hits, s.stats.misses
}

func (s *ShapeCache) count(ctx context.Context, hit bool) {
	s.stats.Lock()
	if hit {
		s.stats.hits++
	} else {
		s.stats.misses++
	}
	s.stats.Unlock()
	CacheHit(ctx, hit)
}

// Shape returns the value cached under key, building it with build (whose result
// costs cost bytes) on a miss. A nil cache always builds. Hits and misses are
// recorded on the running stage's span.
func Shape[T any](ctx context.Context, s *ShapeCache, key string, cost int64, build func() (T, error)) (T, error) {
	if s == nil {
		return build()
	}
	for {
		if v, ok := s.c.Get(key); ok {
			s.count(ctx, true)
			return v.(T), nil
		}
		s.mu.Lock()
		if wg, busy := s.building[key]; busy {
			s.mu.Unlock()
			wg.Wait()
			if v, ok := s.c.Get(key); ok {
				s.count(ctx, true)
				return v.(T), nil
			}
			continue // the builder failed or the entry was not admitted: try ourselves
		}
		wg := &sync.WaitGroup{}
		wg.Add(1)
		s.building[key] = wg
		s.mu.Unlock()

		s.count(ctx, false)
		v, err := build()
		if err == nil {
			s.c.Set(key, v, max(cost, 1))
			s.c.Wait()
		}
		s.mu.Lock()
		delete(s.building, key)
		s.mu.Unlock()
		wg.Done()
		return v, err
	}
}
