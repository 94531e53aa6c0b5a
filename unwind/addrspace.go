package unwind

import "encoding/binary"

// AddrSpace is the target's memory and procedure lookup, as libunwind's
// unw_accessors_t: access_mem, find_proc_info, get_proc_name and
// get_dyn_info_list_addr. Cores, live processes and test fixtures all
// implement it. Every read honours ByteOrder and PtrSize; nothing assumes
// the host's.
type AddrSpace interface {
	// ByteOrder is the target's byte order.
	ByteOrder() binary.ByteOrder
	// PtrSize is the target's pointer size in bytes (4 or 8).
	PtrSize() int
	// ReadMem fills p from target memory at addr. It returns an error
	// wrapping ErrUnavailable when any byte is not known.
	ReadMem(addr uint64, p []byte) error
	// FindProcInfo returns the procedure covering ip and its unwind info
	// (ErrNoInfo when there is none). ip is an exact instruction address:
	// callers look up return addresses as ra-1.
	FindProcInfo(ip uint64) (*ProcInfo, error)
	// ProcName returns the name of the procedure covering ip and ip's
	// offset from its start.
	ProcName(ip uint64) (name string, off uint64, err error)
	// DynInfoListAddr returns the address of the target's dynamic unwind
	// info registration list, or ErrNoInfo.
	DynInfoListAddr() (uint64, error)
}

// Writer is implemented by address spaces that can be modified (a live
// target). Cores do not implement it; cursor writes then fail with
// ErrReadOnly.
type Writer interface {
	WriteMem(addr uint64, p []byte) error
}

// ProcFormat says what kind of unwind information a ProcInfo carries.
type ProcFormat int

const (
	FormatNone        ProcFormat = iota
	FormatCFI                    // DWARF CFI: .eh_frame or .debug_frame FDE
	FormatUnwindTable            // IA-64 or PA-RISC unwind table entry
	FormatDynamic                // dynamic unwind info (regions and operations)
	FormatTable                  // dynamic: TABLE
	FormatRemoteTable            // dynamic: REMOTE_TABLE
)

var procFormatNames = [...]string{"none", "cfi", "unwind_table", "dynamic", "table", "remote_table"}

func (f ProcFormat) String() string {
	if int(f) < len(procFormatNames) {
		return procFormatNames[f]
	}
	return "ProcFormat(?)"
}

// ProcInfo describes the procedure that covers an address, as libunwind's
// unw_proc_info_t.
type ProcInfo struct {
	StartIP, EndIP uint64 // [StartIP, EndIP)
	LSDA           uint64 // language-specific data area, 0 if none
	Handler        uint64 // personality routine, 0 if none
	GP             uint64 // global pointer (IA-64, PA-RISC), 0 if none
	Format         ProcFormat
	// Module is the object the procedure lives in (a path), "" if unknown.
	Module string
	// Bias is added to addresses in Info to get target addresses.
	Bias uint64
	// Info is the architecture-specific unwind information: for FormatCFI
	// a *cfi.FDE from elfx/cfi; for unwind tables the arch package's entry.
	Info any
}

// CodeChecker is an optional AddrSpace accessor: IsCode reports whether
// addr lies in executable memory of the target. Fallback unwinders
// (frame pointers, stack scanning) use it to reject candidate return
// addresses.
type CodeChecker interface {
	IsCode(addr uint64) bool
}
