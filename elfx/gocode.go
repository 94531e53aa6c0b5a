package elfx

// inGoCode reports whether addr (link-time) lies in a Go function of the
// object's .gopclntab: code the Go toolchain compiled or assembled, not C
// code a cgo binary links beside it. For such code the table answers
// what the DWARF would, and the DWARF, zlib-compressed as Go writes it,
// is never read: the function and its inlined calls with file:line
// (the Go linker writes its DWARF lines and inlined subroutines from the
// same tables), the function's entry, and call sites, of which Go's
// compiler writes none (no DW_TAG_call_site, no DW_AT_call_all_calls).
func (o *Object) inGoCode(addr uint64) bool {
	_, ok := o.GoFunc(addr)
	return ok
}

// DWARFRead reports whether the object's DWARF has been read (its index
// built, or DWARF called): a report whose frames are all in Go code
// should leave it unread.
func (o *Object) DWARFRead() bool {
	return o.dwarfRead.Load()
}
