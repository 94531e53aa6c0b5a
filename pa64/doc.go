// Package pa64 unwinds PA-RISC stacks, 32-bit (PA 1.1, "hppa") and 64-bit
// (PA 2.0W, "hppa64"), Linux and HP-UX, from the .PARISC.unwind tables the
// compilers emit: it reads and decodes the 16-byte table entries (every
// descriptor bit of the PA64 unwind specification), finds the entry for a
// pc, and steps from a frame to its caller by the PA stack conventions
// (stacks grow up; rp saved in the caller's frame marker; millicode returns
// through r31; large and alloca frames through r3; Linux signal frames and
// HP-UX interrupt markers). It also decodes the Linux parisc core register
// set and the HP-UX save_state of a core's thread.
//
// The package registers two arches with package unwind, "hppa" and
// "hppa64"; import it for that side effect. It knows nothing about core
// formats (package corefile) or other architectures.
//
// The HP unwind library interface of the PA64 runtime architecture
// specification (U_get_previous_frame, U_STACK_TRACE, ...) is in
// hpunwind.go, in Go form over any unwind.AddrSpace.
package pa64
