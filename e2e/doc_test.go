// Package e2e is the end-to-end test suite of coreunwind: it builds real
// programs at test time (C, C++, Rust, Go), crashes them so the kernel writes
// cores, runs the coreunwind command on those cores and compares its report
// with what independent tools (gdb and eu-stack) say about the same core.
//
// The package holds tests only. It owns the crash harness, the parsers for
// gdb's and eu-stack's backtraces, the comparison rule, and the bad-input
// checks; it knows nothing about how coreunwind works inside.
//
// Environment: CI=true turns a missing tool (gdb, eu-stack, rustc, g++, go)
// into a test failure instead of a skip. /proc/sys/kernel/core_pattern must
// be "core" so cores land in the crashing program's working directory.
package e2e
