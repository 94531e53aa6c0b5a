// Package triage groups many crashes by what crashed: it finds cores in
// directories, tar archives and compressed files, analyzes each one (in
// parallel, sharing opened binaries across the batch), computes a crash
// signature from the crashing thread's frames, and collects cores with
// one signature into a bucket. It writes the buckets as a text table,
// JSON (schema coreunwind.triage/v1, triage-json.md beside the code),
// JSON lines with one report per core, or one pprof profile of all
// crashing threads. A core cut short inside its crashing thread's stack
// is partial: listed with the reason, kept out of the buckets unless
// asked (partial.go; triage-json.md, "Partial cores").
//
// It owns the signature rules (which frames say nothing, how names are
// normalized) and the batch machinery; it knows nothing about file
// formats (corefile), unwinding (unwind) or symbols (elfx).
package triage
