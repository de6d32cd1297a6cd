// Package queue proves leaf jobs on many machines: it puts leanpipe's streaming
// prover (package stream) behind a NATS JetStream work queue, so that any number of
// workers share one queue and a job survives the death of the worker proving it.
//
// The JetStream objects (Ensure creates or updates them; every caller passes the
// same settings, so start order does not matter):
//
//	LEANPIPE_JOBS     work-queue stream, subjects leanpipe.jobs.<flow>; a job is a
//	                  stream.Job as JSON, removed once a worker acks it
//	leanpipe-workers  durable pull consumer on LEANPIPE_JOBS shared by all workers
//	                  (explicit ack, AckWait, MaxDeliver+2 deliveries)
//	LEANPIPE_RESULTS  limits stream, subjects leanpipe.results.<id>; one result
//	                  message per finished job, kept ResultsMaxAge
//	LEANPIPE_DEAD     limits stream, subjects leanpipe.dead.<flow>; jobs given up
//	                  after MaxDeliver deliveries, kept DeadMaxAge
//	leanpipe-proofs   object store: <id>.proof.bin and <id>.proof.bin.json (the
//	                  statement sidecar serve writes), kept ProofsTTL
//
// A Worker pulls at most Options.InFlight jobs at a time (the backpressure), feeds
// them to a stream.Prover, keeps each job's lease with in-progress acks every
// AckWait/3, stores the proof (sidecar first), publishes the result and only then
// acks. Delivery is at least once; it is made exactly once in effect by the store:
// a job whose proof object already exists, made from the same job (the object's
// Leanpipe-Job header: the digest of the job's flow, input contents, form and rate), is answered from the store without proving. A job that
// cannot be read, is over the limits or fails gets an error result and is
// terminated; a job delivered more than MaxDeliver times is copied to the
// dead-letter subject, gets an error result and is terminated; a job abandoned at
// shutdown is Nak'ed and goes to another worker.
//
// Submit publishes jobs and collects exactly one result per job id (the first one
// carrying its submission token), optionally fetching and verifying each proof. It
// reads each job's input file before publishing: the file's SHA-256 goes into the job
// (stream.Job.InputSHA256; the proof store is keyed by it, not by the path) and the
// statement it proves is kept, so that a fetched proof is checked against the job's
// own input, never against the statement the worker stored beside it.
//
// Merge jobs ({"id", "children": ["<id>.proof.bin", …]}) name their children by
// their proof objects; a worker downloads them, merges them with Options.Merger and
// stores the merged proof like a leaf's, keyed by the children's contents (merge.go).
// SubmitTree proves one signature set as leaves and their merge (tree.go).
//
// The package uses no JetStream feature newer than server 2.9 (one filter subject
// per consumer, no per-message TTL, no consumer metadata).
package queue
