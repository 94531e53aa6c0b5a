// Package minidump reads minidump files, the crash reports that Breakpad
// and Crashpad write (and Windows' MiniDumpWriteDump): the header and
// stream directory, the threads and their CPU contexts (x86, amd64, arm,
// arm64), the memory list and the 64-bit memory list, the modules with
// their CodeView records (build IDs), the exception stream, the system
// information, Breakpad's Linux streams (/proc/PID/maps, auxv, command
// line, environment, status, DSO_DEBUG) and Crashpad's annotations.
//
// Names follow rust-minidump's minidump crate and the format's own
// (MINIDUMP_THREAD, MDRawContextAMD64, ...). The package only decodes: it
// knows nothing about unwinding or symbols. corefile turns a Dump into the
// address space and threads the unwinders walk.
//
// Every size, count and RVA is checked against the file: a stream that
// claims more entries than its bytes hold yields the entries that fit and
// a warning, and nothing is allocated by an untrusted size. Memory is not
// copied: a MemoryRange names the file offset of its bytes.
package minidump
