package unwind

// GOTRegArch is implemented by arches whose position-independent code
// addresses its data through a register it loads with the GOT's address
// itself (i386: %ebx = _GLOBAL_OFFSET_TABLE_, after a call to a pc
// thunk), where other arches' code is pc-relative. Crash analysis
// decodes such code (libstdc++'s __cxa_get_globals) with that register
// set to the module's GOT (DT_PLTGOT). Optional, as TableArch is.
type GOTRegArch interface {
	GOTReg() int
}
