// Package ia64 is test-only support for IA-64: assembling test programs
// with binutils, reading ia64-linux-gnu-readelf -u output, an IA-64
// interpreter that runs assembled programs to a fault, and writers for
// the Linux and HP-UX cores it leaves. Nothing here runs in the product.
package ia64
