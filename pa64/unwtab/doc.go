// Package unwtab reads PA-RISC unwind tables: the .PARISC.unwind
// section of 32- and 64-bit objects, linked or relocatable (SEGREL32
// relocations), its 16-byte entries and their descriptor words, as
// readelf -u prints them. It decodes the format only; package pa64
// unwinds with it.
package unwtab
