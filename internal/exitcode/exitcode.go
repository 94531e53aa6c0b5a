// Package exitcode holds the exit statuses of coreunwind's commands
// (coreunwind and coreunwind-beam): one list, the README's "Exit codes",
// so that coreunwind-beam's stay triage's.
package exitcode

const (
	// OK: the report was written (it may carry warnings); for triage,
	// every core was analyzed.
	OK = 0
	// Usage: bad flags or arguments.
	Usage = 1
	// NoCore: the core could not be read at all; for triage, no core
	// could be analyzed.
	NoCore = 2
	// Partial: the report was written, but some thread's unwinding
	// stopped with an error; for triage, some cores failed or are
	// partial.
	Partial = 3
	// Output: the output could not be written.
	Output = 4
	// Pipeline: coreunwind-beam's pipeline failed (the runner or a
	// worker): nothing or not all was written.
	Pipeline = 5
	// FileChanged: a file being read (the core, a binary, a library, a
	// debug file) was truncated or rewritten during the analysis, and the
	// read of its mapping faulted: no report; run again once the files
	// stay put. For triage, such a core is one that failed (3).
	FileChanged = 6
	// Memory: the heap still in use after a garbage collection exceeded
	// the process's limit (GOMEMLIMIT, else three quarters of the
	// machine's or the cgroup's memory): nothing more is written.
	Memory = 7
	// Attach: a live process (-p PID) could not be snapshotted: it does
	// not exist, is a zombie, is traced by another debugger, or ptrace
	// is not permitted; the message says what to do. Nothing is written.
	Attach = 8
	// Interrupted: SIGINT or SIGTERM arrived while a live process was
	// being snapshotted; every thread was let go first. Nothing is
	// written (sampling writes the samples already taken and exits 0).
	Interrupted = 130
)
