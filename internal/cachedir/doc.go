// Package cachedir names the directory leanpipe keeps its caches in between runs
// (generated signers, compiled circuits): one rule for every package that caches.
package cachedir
