package i386

import "github.com/coreunwind/coreunwind/unwind"

// GoFrame sets a parked goroutine's registers from its gobuf
// (unwind.GoArch): eip and esp.
func (Arch) GoFrame(s unwind.GoSched, f *unwind.Frame) {
	f.SetNonZero(EIP, s.PC)
	f.SetNonZero(ESP, s.SP)
}
