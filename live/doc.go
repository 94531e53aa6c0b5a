// Package live takes a snapshot of a running process, for the same
// analysis a core gets: it is one more producer of what package corefile
// produces (a read-only address space, threads with their registers,
// mappings and modules, process facts), so that analyze and everything
// after it do not know the difference.
//
// A snapshot stops every thread with PTRACE_SEIZE and PTRACE_INTERRUPT
// (from one locked OS thread: ptrace binds a tracee to the thread that
// attached it), reads each thread's registers (PTRACE_GETREGSET
// NT_PRSTATUS) and copies the top of each stack, then lets every thread
// go again before anything is unwound. The snapshot is written as an
// ELF core in memory (the same writer --dump uses for a whole core on
// disk) and opened with corefile; memory the snapshot did not copy (the
// heap, JIT code, data) is read from the running process afterwards
// (process_vm_readv, /proc/PID/mem where that is refused), and files
// where /proc/PID/maps names them: through /proc/PID/root for a process
// of another mount namespace (a container), so that it is read with its
// own files.
//
// The package knows nothing about unwinding or symbols. It runs on
// Linux x86_64 hosts and reads x86_64 and i386 processes.
package live
