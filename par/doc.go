// Package par is the one parallel runtime of the prover's kernels: the workers a
// stage was granted, as a value that carries the stage's context, hands out chunks of
// an index range on demand, checks for cancellation between chunks and turns a panic
// in any of its goroutines into the stage's error. It imports nothing of leanpipe, so
// every kernel package (ntt, merkle, the stages) can take a Workers without depending
// on the graph.
package par
