// Package buffers pools the large, 64-byte-aligned slices proofs pass along the graph.
//
// A Pool[T] hands out Bufs by power-of-two size class. A Buf is reference counted:
// its producer holds one reference, hands ownership to each consumer with Retain,
// and every holder calls Release when done; the last Release returns the memory to
// the pool, so a process proving batch after batch of one shape reuses the same
// memory. Using a Buf after its last Release panics (a programmer error).
//
// Make and Grow allocate every large buffer of a proof (the pools' too) and, on
// Linux, advise the kernel to back it with transparent huge pages before its first
// touch (MADV_HUGEPAGE; LEANPIPE_HUGEPAGES=off turns it off): the proof streams
// through gigabytes of stacks, codewords and tables, and 4 KiB pages cost each
// stream a TLB miss and a prefetcher restart per page. The advice changes no byte.
//
// MakeUninit and GrowUninit are Make and Grow without Go's clearing, for buffers their
// users write in full before reading: a large allocation that reuses heap memory is
// otherwise cleared serially by the allocating goroutine. Poison fills what they
// return with a test's byte, so tests can show that nothing reads it unwritten.
//
// Permanent is for data a process keeps to its end and streams through many times (a
// compiled circuit's program): anonymous memory outside the Go heap, with the
// huge-page advice, never freed, so that it neither sits on 4 KiB pages nor raises
// the collector's goal.
//
// The package imports no other leanpipe package: pools are instantiated with field
// element types by the flows.
package buffers
