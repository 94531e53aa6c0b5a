package i386

import "strconv"

// DWARF register numbers of the i386 psABI (System V ABI, Intel386
// supplement, table 2.14). EIP is the return-address column of every
// CIE gcc, clang and the kernel's vDSO emit.
const (
	EAX = iota
	ECX
	EDX
	EBX
	ESP
	EBP
	ESI
	EDI
	EIP
	NumRegs
)

var regNames = [NumRegs]string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip"}

// RegName names DWARF register r; numbers past eip (the x87 and SSE
// registers, eflags) print as "r<N>" the way readelf prints registers it
// has no name for.
func RegName(r uint64) string {
	if r < NumRegs {
		return regNames[r]
	}
	return "r" + strconv.FormatUint(r, 10)
}

// calleeSaved are the registers a call preserves (psABI 2.2.1: ebx, esi,
// edi, ebp; esp by the calling convention): when CFI says nothing about
// them, the caller's value is the callee's.
var calleeSaved = []bool{EBX: true, EBP: true, ESI: true, EDI: true}
