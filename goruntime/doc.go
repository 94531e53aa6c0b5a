// Package goruntime reads a Go program's goroutines from its memory: the
// runtime's list of every g (runtime.allgs) and, for each, its id,
// status, wait reason, stack bounds and saved registers (g.sched), with
// the struct layouts taken from a table generated with each Go release's
// own toolchain (layouts_gen.go, `go generate` runs
// internal/layoutgen), or from the executable's DWARF for a release the
// table lacks. A stripped executable's runtime.allgs is found in
// runtime.allgadd's code (AllgsFromCode). It reads through
// any address space (a core, a test's fake memory) and knows nothing of
// unwinding or output: analyze walks each goroutine's stack from what
// this package returns and puts the goroutines in the report.
//
// What memory says is not trusted: counts and string lengths are
// bounded, a g that cannot be read is skipped with a warning, and the
// reader never allocates by a size it read.
package goruntime
