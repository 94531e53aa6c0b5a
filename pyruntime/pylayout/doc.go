// Package pylayout owns where CPython keeps the members a core-dump reader
// needs: byte offsets (and the few sizes, bit masks and enum values) inside
// _PyRuntimeState, PyInterpreterState, PyThreadState, the frame structs,
// code objects, strings, bytes, tuples, types and exceptions, for one
// CPython version and build flavour (release, Py_DEBUG, free-threaded).
//
// A Layout comes from one of three places, best first:
//   - FromDebugOffsets: the _Py_DebugOffsets table CPython 3.13+ keeps at the
//     start of _PyRuntime, read from the core itself;
//   - FromDWARF: libpython's debug information, when a debug file is found;
//   - Lookup: a table generated from CPython's own headers
//     (internal/genlayout, run by hand with `go generate`; committed as
//     table_gen.go).
//
// The package reads no memory and follows no pointers: walking the
// interpreter's structures is package pyruntime's job. Line tables are
// decoded by package pyruntime/linetable.
package pylayout
