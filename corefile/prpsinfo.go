package corefile

import (
	"encoding/binary"
	"strings"
)

// prpsinfo is the decoded part of struct elf_prpsinfo.
//
// Layouts, chosen by class and descriptor size:
//
//	field                      ELF64 (136)  ELF32 uid32 (128)  ELF32 uid16 (124)
//	pr_state..pr_nice (4 char)   0            0                  0
//	pr_flag (ulong)              8            4                  4
//	pr_uid, pr_gid              16, 20        8, 12              8, 10
//	pr_pid, ppid, pgrp, sid     24..36       16..28             12..24
//	pr_fname[16]                40           32                 28
//	pr_psargs[80]               56           48                 44
//
// x86_64 and the other 64-bit Linux ports use 32-bit uid_t (136 bytes).
// 32-bit ports differ: i386, arm and m68k have a 16-bit __kernel_uid_t
// (124 bytes); parisc, mips and most newer ports have 32 bits (128 bytes).
// The size tells them apart.
type prpsinfo struct {
	State         byte
	SName         byte
	Flag          uint64
	UID, GID      uint32
	PID, PPID     int32
	PGrp, SID     int32
	FName, PSArgs string
}

func parsePrpsinfo(d []byte, order binary.ByteOrder, ptrSize int) (prpsinfo, error) {
	var p prpsinfo
	var uidOff, idOff, fnameOff int
	uid16 := false
	switch {
	case ptrSize == 8 && len(d) >= 136:
		uidOff, idOff, fnameOff = 16, 24, 40
		p.Flag = order.Uint64(d[8:])
	case ptrSize == 4 && len(d) >= 128:
		uidOff, idOff, fnameOff = 8, 16, 32
		p.Flag = uint64(order.Uint32(d[4:]))
	case ptrSize == 4 && len(d) >= 124:
		uidOff, idOff, fnameOff = 8, 12, 28
		uid16 = true
		p.Flag = uint64(order.Uint32(d[4:]))
	default:
		return p, formatErr(0, "NT_PRPSINFO has unexpected size %d for a %d-bit core", len(d), ptrSize*8)
	}
	p.State, p.SName = d[0], d[1]
	if uid16 {
		p.UID, p.GID = uint32(order.Uint16(d[uidOff:])), uint32(order.Uint16(d[uidOff+2:]))
	} else {
		p.UID, p.GID = order.Uint32(d[uidOff:]), order.Uint32(d[uidOff+4:])
	}
	p.PID, p.PPID = int32(order.Uint32(d[idOff:])), int32(order.Uint32(d[idOff+4:]))
	p.PGrp, p.SID = int32(order.Uint32(d[idOff+8:])), int32(order.Uint32(d[idOff+12:]))
	p.FName = cString(d[fnameOff : fnameOff+16])
	// The kernel replaces the NULs between arguments with spaces and pads
	// with a trailing space; keep the arguments, drop the padding.
	p.PSArgs = strings.TrimRight(cString(d[fnameOff+16:fnameOff+16+80]), " ")
	return p, nil
}
