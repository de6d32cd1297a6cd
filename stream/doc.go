// Package stream proves a stream of leaf jobs through one long-running Engine: the
// third way of using leanpipe, after one proof per process (prove) and a fixed list
// of leaves (run).
//
// A stream is a go-streams pipeline (github.com/reugn/go-streams):
//
//	source (JSON lines, a watched directory, a Go channel)
//	  → Prover   (up to K proofs running on one Engine, a memory budget, results re-ordered)
//	  → ProofFiles (DIR/<id>.proof.bin and its .json, written atomically)
//	  → sink     (JSON lines of results, or a function for library users)
//
// go-streams' edges are untyped, unbuffered `chan any` without an error path, and an
// operator with parallelism above one loses order. Every component here therefore
// sends and receives one typed value per edge, an Envelope[T] (a job or a result
// with its sequence number and, for a job that could not be read, its error), checks
// the type at each receiving end (a wrong type is a programmer error and panics),
// and restores job order in the Prover, which is the only place work overlaps. A job
// that cannot be read, is over the size limits, or fails while proving becomes an
// error Result for that job and the stream goes on; every job a source accepts gets
// exactly one Result, also when the stream is shut down.
//
// Admission: before a job waits for a proving slot, its input file's instances are
// counted from its size when that count fits the limits (exact for fixed-size
// instances, an upper bound for a signatures file), else the file is read (its
// input_sha256 checked) and parsed and its instances counted exactly: a job is
// refused over the instance limit naming the count and the limit, never by a guess,
// and before any signature of it is verified (that happens in the proving slot, after
// the count is checked again on the parsed input).
// With Options.UniqueIDs (serve) an id may name one job of the stream only. Error
// results name at most MaxListed invalid signatures ("…and N more") and their text is
// cut at MaxErrorBytes.
//
// Overlap: several Engine.Prove calls run at once and share the Engine's scheduler,
// so one proof's serial steps (transcript-ordered rounds, the small levels of the
// opening) run beside another proof's parallel kernels. Buffers and the shape cache
// live in the Engine and persist across jobs.
//
// Backpressure: at most K = Options.InFlight proofs run at once, each holding its
// estimated working set (Estimate) from a byte budget while it runs, and at most
// Options.Pending jobs are held between intake and hand-off downstream. A slow sink
// therefore stops the Prover from taking more jobs, which stops the source from
// reading, and memory stays bounded whatever the input rate.
package stream
