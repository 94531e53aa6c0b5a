package corefile

import (
	"encoding/binary"
)

// prstatus is the decoded part of struct elf_prstatus.
//
// Layout (include/linux/elfcore.h), offsets by class:
//
//	field                 ELF64   ELF32
//	pr_info.si_signo        0       0
//	pr_info.si_code         4       4
//	pr_info.si_errno        8       8
//	pr_cursig (short)      12      12
//	pr_sigpend (ulong)     16      16
//	pr_sighold (ulong)     24      20
//	pr_pid .. pr_sid       32..47  24..39
//	4 timevals             48     40
//	pr_reg                112     72
//	pr_fpvalid (int)     size-8  size-4
//
// pr_reg's size depends on the machine (x86_64: 27 × 8 = 216 bytes,
// descsz 336; ia64: 1024, descsz 1144; parisc: 80 words), so it is taken
// as everything between its start and the trailing pr_fpvalid: on ELF64
// the struct is 8-byte aligned and pr_fpvalid is followed by 4 bytes of
// padding. x32 (ELFCLASS32 with EM_X86_64) has 64-bit registers inside
// the 32-bit layout (compat_elf_prstatus: pr_reg at 72, 27 × 8 bytes,
// descsz 296): its 8-byte alignment pads 4 bytes after pr_fpvalid, which
// end up in Reg, past the 216 bytes that x86_64's register set reads.
type prstatus struct {
	Signo, Code, Errno int32
	Cursig             int16
	Sigpend, Sighold   uint64
	PID, PPID          int32
	PGrp, SID          int32
	Reg                []byte
}

func parsePrstatus(d []byte, order binary.ByteOrder, ptrSize int) (prstatus, error) {
	var p prstatus
	regOff, tail := 72, 4
	if ptrSize == 8 {
		regOff, tail = 112, 8
	}
	if len(d) < regOff+tail {
		return p, formatErr(0, "NT_PRSTATUS too short: %d bytes, need at least %d", len(d), regOff+tail)
	}
	p.Signo = int32(order.Uint32(d[0:]))
	p.Code = int32(order.Uint32(d[4:]))
	p.Errno = int32(order.Uint32(d[8:]))
	p.Cursig = int16(order.Uint16(d[12:]))
	if ptrSize == 8 {
		p.Sigpend = order.Uint64(d[16:])
		p.Sighold = order.Uint64(d[24:])
		d2 := d[32:]
		p.PID, p.PPID = int32(order.Uint32(d2[0:])), int32(order.Uint32(d2[4:]))
		p.PGrp, p.SID = int32(order.Uint32(d2[8:])), int32(order.Uint32(d2[12:]))
	} else {
		p.Sigpend = uint64(order.Uint32(d[16:]))
		p.Sighold = uint64(order.Uint32(d[20:]))
		d2 := d[24:]
		p.PID, p.PPID = int32(order.Uint32(d2[0:])), int32(order.Uint32(d2[4:]))
		p.PGrp, p.SID = int32(order.Uint32(d2[8:])), int32(order.Uint32(d2[12:]))
	}
	p.Reg = d[regOff : len(d)-tail]
	return p, nil
}
