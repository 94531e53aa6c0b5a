// Package container reads the crash reports that carry an ELF core
// inside something else, and the facts they record about the crash:
// systemd journal files (each systemd-coredump entry, its core in the
// binary COREDUMP field or in the file COREDUMP_FILENAME names), apport
// .crash files (the core base64-encoded and gzipped in CoreDump) and
// ABRT problem directories (the coredump file beside one file per fact).
//
// Each crash found is a Crash: a name, its report.Origin (the recorded
// facts), its text fields for matching, and the core, extracted on
// request into a sparse temporary file through corefile.DecompressTo, so
// that a core inside a container is bounded exactly as a compressed core
// is (COREUNWIND_MAX_CORE_SIZE, the ELF file's own extent). The core is
// then an ordinary core file: corefile and everything after it do not
// know where it came from.
//
// It owns the containers' formats (the journal's on-disk format is
// package journal's); it knows nothing about cores beyond handing their
// bytes to corefile.
package container
