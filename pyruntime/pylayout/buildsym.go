package pylayout

// Symbols that only some builds define, so that a reader with the
// interpreter's dynamic symbols can tell its build.
const (
	// SymRefDebug is defined by Py_REF_DEBUG builds, which every Py_DEBUG
	// build is (Include/object.h).
	SymRefDebug = "_Py_NegativeRefcount"
	// SymFreeThreaded is defined only by Py_GIL_DISABLED builds (3.13t,
	// Include/object.h).
	SymFreeThreaded = "_Py_MergeZeroLocalRefcount"
)

// BuildFromSymbols tells a CPython's build from whether it defines
// SymRefDebug and SymFreeThreaded.
func BuildFromSymbols(defined func(name string) bool) Build {
	var b Build
	if defined(SymRefDebug) {
		b |= Debug
	}
	if defined(SymFreeThreaded) {
		b |= FreeThreaded
	}
	return b
}

// VersionFromHex is the feature release of a PY_VERSION_HEX (Py_Version,
// _Py_DebugOffsets.version): 0x030b07f0 is 3.11.
func VersionFromHex(hex uint64) Version {
	return Version{int(hex >> 24 & 0xff), int(hex >> 16 & 0xff)}
}
