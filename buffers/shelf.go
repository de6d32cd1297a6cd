package buffers

import "sync"

// Shelf keeps reusable values of T (a stage's scratch: tables, trees, work space
// that grows to a shape and is then reused) for the proofs in flight. Get takes one
// (a new zero T when the shelf is empty), Put gives it back for the next proof. A
// value is used by one proof at a time. Safe for concurrent use; the zero Shelf is
// ready.
type Shelf[T any] struct {
	mu   sync.Mutex
	free []*T
}

// Get takes a value off the shelf, or returns a new one.
func (s *Shelf[T]) Get() *T {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.free); n > 0 {
		v := s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
		return v
	}
	return new(T)
}

// Put returns v to the shelf; nil is ignored.
func (s *Shelf[T]) Put(v *T) {
	if v == nil {
		return
	}
	s.mu.Lock()
	s.free = append(s.free, v)
	s.mu.Unlock()
}

// Len is the number of values on the shelf.
func (s *Shelf[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.free)
}

// Grow returns s with length n, reusing its array when the capacity suffices (the
// contents are then unspecified) and allocating a new one with Make otherwise: the
// one grow helper for scratch slices that reach a shape's size and are then reused.
func Grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return Make[T](n)
}
