package graph

import (
	"context"
	"fmt"
	"sync"

	"github.com/dgraph-io/ristretto/v2"
	"golang.org/x/sync/singleflight"
)

// ShapeCache keeps shape-keyed precomputation (NTT tables, WHIR configurations,
// circuit tables) across proofs, so repeated proofs of one shape skip it. It is
// backed by ristretto with a cost budget in bytes; concurrent requests for a missing
// key build it once.
type ShapeCache struct {
	c      *ristretto.Cache[string, any]
	flight singleflight.Group
	stats  struct {
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
	return &ShapeCache{c: c}, nil
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
// costs cost bytes) on a miss. Concurrent misses of one key share one build
// (singleflight); a waiter is counted as a hit. A nil cache always builds. Hits and
// misses are recorded on the running stage's span.
func Shape[T any](ctx context.Context, s *ShapeCache, key string, cost int64, build func() (T, error)) (T, error) {
	if s == nil {
		return build()
	}
	if v, ok := s.c.Get(key); ok {
		s.count(ctx, true)
		return v.(T), nil
	}
	built := false // only the caller whose function runs can set it
	v, err, _ := s.flight.Do(key, func() (any, error) {
		// Another caller may have finished the build between our miss and Do.
		if v, ok := s.c.Get(key); ok {
			return v, nil
		}
		built = true
		v, err := build()
		if err == nil {
			s.c.Set(key, v, max(cost, 1))
			s.c.Wait()
		}
		return v, err
	})
	s.count(ctx, !built)
	if err != nil {
		var zero T
		return zero, err
	}
	return v.(T), nil
}
