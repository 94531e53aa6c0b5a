// Package elfx is ELF objects as coreunwind's unwinder and symbolizer need
// them: program headers for the load bias, build IDs, separate debug files
// (build-id directories and .gnu_debuglink with its CRC), symbol tables
// merged from the binary, its debug file and .dynsym, DWARF lines and
// inlined calls (with .gopclntab for Go binaries), demangling, and the
// unwind tables (.eh_frame, .eh_frame_hdr, .debug_frame, parsed by
// elfx/cfi). A Cache shares one Object per binary across a batch of cores.
//
// Everything but the ELF headers is parsed lazily on first use, so opening
// every library a core maps is cheap and only what a backtrace touches is
// ever decoded. All addresses taken and returned are link-time (unbiased)
// addresses; the caller subtracts the load bias.
//
// The package knows nothing about cores, threads or address spaces.
package elfx
