// Package unwtab reads IA-64 unwind tables: the .IA_64.unwind section of
// linked and relocatable objects (segment-relative entries), the info
// blocks they point to, and the unwind descriptor records in them, in
// either byte order. It decodes the format only; package ia64 turns
// records into an unwind state.
package unwtab
