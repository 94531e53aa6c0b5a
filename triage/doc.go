// Package triage groups many crashes by what crashed: it finds cores in
// directories, tar archives and compressed files, analyzes each one (in
// parallel, sharing opened binaries across the batch), computes a crash
// signature from the crashing thread's frames, and collects cores with
// one signature into a bucket. It writes the buckets as a text table,
// JSON (schema coreunwind.triage/v1, triage-json.md in the shared docs),
// JSON lines with one report per core, or one pprof profile of all
// crashing threads.
//
// It owns the signature rules (which frames say nothing, how names are
// normalized) and the batch machinery; it knows nothing about file
// formats (corefile), unwinding (unwind) or symbols (elfx).
package triage
