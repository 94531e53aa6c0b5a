// Package pyruntime reads a CPython process's Python stacks from its
// memory: the runtime state (_PyRuntime), its interpreters, each thread
// state with its native thread id, the chain of interpreter frames with
// the markers of the C evaluator call that runs each run of them, each
// frame's code object (qualified name, file, first line) and current
// line from the code's line table, which thread holds the GIL and the
// exception a thread is raising or handling.
//
// It reads through any address space (a core, a test's fake memory)
// and knows nothing of unwinding or output: analyze splices the frames
// it returns into the native stacks, in place of the evaluator frames
// that run them.
//
// What memory says is not trusted: chains are bounded and stop at a
// cycle, strings and tables are read up to fixed limits, a structure
// that cannot be read ends its chain with a warning, and the reader
// never allocates by a size it read.
package pyruntime
