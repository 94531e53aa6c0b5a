// Package corefile opens process core dumps and exposes what a post-mortem
// analysis needs from them: the process (pid, command line, executable),
// the signal that killed it, every thread's raw register notes, the
// auxiliary vector, the file mappings and the modules (executable, shared
// libraries, vDSO) with their build IDs, and a read-only view of the
// process memory.
//
// The modules come from NT_FILE, or when the core has none (qemu-user,
// kernels before 3.7), from the auxiliary vector (the executable) and the
// dynamic linker's link map (the libraries), laid out from their program
// headers; with NT_FILE, the link map is checked against it.
//
// Memory comes from the core's PT_LOAD segments first. Where the kernel did
// not dump a page (read-only file mappings such as text and rodata), the
// bytes come from the mapped file itself, found on disk under a sysroot, a
// search path or the recorded path, and used only when its GNU build ID
// matches the one the core's memory records for that module. Everything
// else reads as unwind.ErrUnavailable: bytes past p_filesz are unknown, not
// zero.
//
// The package implements the memory half of unwind.AddrSpace (ReadMem,
// ByteOrder, PtrSize, IsCode); it knows nothing about unwinding, symbols or
// registers' meaning: the raw pr_reg bytes are handed to the arch packages.
//
// Compressed cores (zstd, xz, gzip, lz4) are decompressed once into a
// sparse, unlinked temporary file and then read like any other.
//
// Formats: Linux ELF cores ("elf-linux") of any class and byte order. The
// note layouts are exact for x86_64 and follow the kernel's generic
// elf_prstatus/elf_prpsinfo for other machines (see prstatus.go and
// prpsinfo.go for the per-class offsets and the known exceptions). HP-UX
// cores are recognised and refused with a clear error until their loader
// lands.
package corefile
