// Package analyze turns a core into a report: it opens the core
// (corefile), the mapped objects and their debug files (elfx), builds the
// read-only address space the unwinder reads, walks every thread with an
// unwind.Cursor and symbolizes the frames. It is coreunwind's processor,
// as minidump-processor is rust-minidump's; the CLI, pprof output and
// triage all start here.
package analyze
