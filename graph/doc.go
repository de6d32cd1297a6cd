// Package graph runs proofs as typed dataflow graphs of stages.
//
// A Stage is a named unit of work with a typed input and output and an appetite for
// cores (MinWorkers..MaxWorkers). A Graph wires stages through typed ports: the Go
// compiler checks that an edge's producer and consumer agree on the value type, and
// Validate checks the rest (every slot fed exactly once, no cycles). Run executes the
// graph under a context: each stage is granted a worker count by a Scheduler (a
// weighted semaphore over the machine's cores), runs with exactly that many workers,
// and records a Span. The first error, or a panic in a stage or in any of its worker
// goroutines, cancels the run and is returned naming the stage.
//
// The package imports no other leanpipe package; proof stages adapt to it.
package graph
