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
)
