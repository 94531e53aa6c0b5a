package corefile

import (
	"debug/elf"
	"encoding/binary"
)

// parseSiginfo decodes a siginfo_t (NT_SIGINFO). si_signo, si_errno and
// si_code are 32-bit ints at offsets 0, 4, 8 (MIPS swaps si_errno and
// si_code); the union starts at 16 on 64-bit targets (pointer alignment)
// and at 12 on 32-bit ones. Fault signals carry si_addr first in the union;
// signals sent by a process (SI_USER, SI_TKILL, SI_QUEUE) carry si_pid and
// si_uid.
func parseSiginfo(d []byte, order binary.ByteOrder, ptrSize int, mach elf.Machine) (*Signal, error) {
	union := 12
	if ptrSize == 8 {
		union = 16
	}
	if len(d) < union+8 { // si_addr, or si_pid and si_uid
		return nil, formatErr(0, "NT_SIGINFO too short: %d bytes", len(d))
	}
	s := &Signal{
		Number:   int(int32(order.Uint32(d[0:]))),
		Errno:    int(int32(order.Uint32(d[4:]))),
		Code:     int(int32(order.Uint32(d[8:]))),
		Detailed: true,
		machine:  mach,
	}
	if mach == elf.EM_MIPS || mach == elf.EM_MIPS_RS3_LE {
		s.Code, s.Errno = s.Errno, s.Code
	}
	u := d[union:]
	switch {
	case s.Code > 0 && s.isFaultSignal():
		s.HasAddr = true
		if ptrSize == 8 {
			s.Addr = order.Uint64(u)
		} else {
			s.Addr = uint64(order.Uint32(u))
		}
	case s.Code == siUser || s.Code == siTkill || s.Code == siQueue:
		s.SenderPID = int(int32(order.Uint32(u[0:])))
		s.SenderUID = int(order.Uint32(u[4:]))
		s.HasSender = true
	}
	return s, nil
}

// SiginfoSize is the size of a siginfo_t on every Linux arch.
const SiginfoSize = 128

// ParseSiginfo decodes a siginfo_t the process's memory holds (the one a
// signal frame saved for its handler, unwind.SiginfoArch) as the core's
// NT_SIGINFO is decoded.
func (c *Core) ParseSiginfo(d []byte) (*Signal, error) {
	return parseSiginfo(d, c.order, c.ptrSize, c.Machine)
}

// IsFault reports whether the kernel sent the signal for a fault of the
// thread's own instruction: SIGSEGV, SIGBUS, SIGILL or SIGFPE with a
// kernel code (> 0; SI_KERNEL for x86's general-protection faults).
func (s *Signal) IsFault() bool {
	if !s.Detailed || s.Code <= 0 {
		return false
	}
	switch s.Name() {
	case "SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE":
		return true
	}
	return false
}

// FaultSignal is the siginfo the kernel would have written for a fault
// (signal number, si_code, si_addr) on the core's machine: a fault a
// signal context records without a siginfo (unwind.TrapContextArch).
func (c *Core) FaultSignal(number, code int, addr uint64) *Signal {
	return &Signal{Number: number, Code: code, Addr: addr, HasAddr: true, Detailed: true, machine: c.Machine}
}
