package x86_64

// DWARF register numbers of the x86-64 psABI (figure 3.36). RIP is the
// return-address column of every CIE gcc and clang emit.
const (
	RAX = iota
	RDX
	RCX
	RBX
	RSI
	RDI
	RBP
	RSP
	R8
	R9
	R10
	R11
	R12
	R13
	R14
	R15
	RIP
	NumRegs
)

var regNames = [NumRegs]string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"}

// RegName names DWARF register r; numbers past rip print as "r<N>" the way
// readelf prints registers it has no name for.
func RegName(r uint64) string {
	if r < NumRegs {
		return regNames[r]
	}
	return "r" + itoa(r)
}

func itoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

// calleeSaved are the registers a call preserves (psABI 3.2.1): when CFI
// says nothing about them, the caller's value is the callee's.
var calleeSaved = [NumRegs]bool{RBX: true, RBP: true, R12: true, R13: true, R14: true, R15: true}
