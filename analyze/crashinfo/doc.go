// Package crashinfo explains why a process crashed, from what its core
// proves: the faulting instruction and the address it computed, what the
// fault address means (a NULL pointer plus an offset, a stack overflow, a
// write to read-only memory, a jump outside the code), glibc's abort
// message, the C++ exception std::terminate was handling. It says nothing
// it cannot show from the core: where the evidence is missing, the
// summary is the signal's own facts.
//
// It owns no format and no architecture: instructions are decoded by the
// arch's unwind.InsnDecoder, memory is read through Memory, and the
// report types come from package report.
package crashinfo
