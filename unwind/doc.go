// Package unwind is coreunwind's architecture-neutral unwinding engine,
// shaped after libunwind's remote unwinder.
//
// A target is an AddrSpace: read-only memory accessors plus a way to find
// the unwind information (a ProcInfo) for an instruction address. A Cursor
// starts from one thread's registers and steps toward older frames using
// the Arch registered for the target's machine. Architecture packages
// (x86_64, ia64, pa64) register themselves with Register, as image/png
// registers with image; this package never imports them.
//
// The package knows nothing about file formats (that is corefile and elfx)
// nor about any one architecture's rules (that is the arch packages).
package unwind
