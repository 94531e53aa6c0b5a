// Package gopclntab reads a Go executable's .gopclntab, the runtime's own
// function table, in the formats of Go 1.20 and later (Go 1.18 and 1.19
// share the layout): for any code address the function (name, entry,
// end, funcID, flags), its file and line, the stack pointer's offset
// from the frame's entry value (the pcsp table, what the Go runtime
// unwinds with), and the chain of functions inlined there (the
// FUNCDATA_InlTree tree indexed by PCDATA_InlTreeIndex).
//
// The table survives `go build -ldflags=-s -w`, which strips the symbol
// table and DWARF: it is what names and walks a stripped Go program's
// frames. debug/gosym reads names and lines from the same table but not
// the per-function records this package needs (pcsp, pcdata, funcdata,
// funcID); the tests use it as the independent judge of names and lines.
//
// The bytes are not trusted: every offset is checked against the data,
// loops are bounded by the bytes they consume, and nothing is allocated
// by a size read from the table. Errors are *FormatError.
package gopclntab
