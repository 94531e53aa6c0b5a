// Package cfi parses and evaluates DWARF call frame information: the
// .eh_frame section (with its .eh_frame_hdr binary-search table) and the
// .debug_frame section, in either byte order and for 4- or 8-byte
// pointers.
//
// It owns the CIE/FDE formats, pointer encodings (DW_EH_PE_*), the CFA
// instruction interpreter (DW_CFA_*) that turns an FDE into rows of
// register rules, and the DWARF expression stack machine (DW_OP_*) those
// rules may use. It does not own unwinding itself: applying a Row to a
// frame's registers is the architecture packages' job, and reading a
// target's memory is the caller's (through ExprContext.ReadMem).
//
// Parsing is lazy: a Table keeps the section bytes and decodes one FDE per
// lookup. With a valid .eh_frame_hdr the lookup is a binary search in the
// header's table; without one the FDEs are indexed once, on first lookup.
// Every length and count is checked against the bytes actually present, so
// corrupt or hostile input yields an error, never a panic or an allocation
// sized by a field.
//
// All addresses are link-time addresses (as in the ELF file, unbiased); the
// caller subtracts the load bias before a lookup and adds it to results.
package cfi
