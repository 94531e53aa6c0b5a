package corefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Note types found in Linux cores (include/uapi/linux/elf.h).
const (
	NTPrstatus   = 1          // NT_PRSTATUS: struct elf_prstatus, one per thread
	NTFPRegset   = 2          // NT_PRFPREG / NT_FPREGSET: floating-point registers
	NTPrpsinfo   = 3          // NT_PRPSINFO: struct elf_prpsinfo
	NTTaskstruct = 4          // NT_TASKSTRUCT
	NTAuxv       = 6          // NT_AUXV: the auxiliary vector
	NTSiginfo    = 0x53494749 // NT_SIGINFO ("SIGI"): siginfo_t of the killing signal
	NTFile       = 0x46494c45 // NT_FILE ("FILE"): file-backed mappings
	NTX86XState  = 0x202      // NT_X86_XSTATE: XSAVE area
	NTGNUBuildID = 3          // NT_GNU_BUILD_ID, in "GNU" notes of ELF images
	NTGoBuildID  = 4          // the Go linker's build ID, in "Go" notes of ELF images
)

// Note is one ELF note. Desc aliases the buffer the notes were parsed from.
type Note struct {
	Name string // owner, without the trailing NUL ("CORE", "LINUX", "GNU")
	Type uint32
	Desc []byte
	Off  uint64 // offset of the note header within the parsed buffer
}

// maxNoteAlign bounds what ParseNotes accepts as alignment.
const maxNoteAlign = 8

// ParseNotes decodes the notes in b (the contents of a PT_NOTE segment or a
// SHT_NOTE section) in file order. align is the note alignment: 4 for
// Linux kernel cores (even ELF64 ones), 8 for notes whose segment says
// p_align 8; other values are treated as 4.
//
// A malformed note (a name that is not NUL-terminated text, sizes past
// the end) yields a *FormatError, and the notes after it are found again
// by their owner names (resync): one damaged byte in a header shifts
// every later note, and read as they lie they would be other notes' bytes
// (a thread with registers taken from the middle of another note). The
// error joins one *FormatError per malformed note; the notes decoded are
// returned with it.
func ParseNotes(b []byte, order binary.ByteOrder, align int) ([]Note, error) {
	if align != maxNoteAlign {
		align = 4
	}
	var notes []Note
	var errs []error
	off := uint64(0)
	n := uint64(len(b))
	for off < n {
		if n-off < 12 {
			// The kernel never leaves a partial header; padding shorter
			// than a header is tolerated only if it is all zero.
			if !allZero(b[off:]) {
				errs = append(errs, formatErr(off, "truncated note header (%d bytes left)", n-off))
			}
			break
		}
		note, next, err := noteAt(b, off, order, uint64(align))
		if err != nil {
			errs = append(errs, err)
			next = resyncNotes(b, off+4, order, uint64(align))
		} else {
			notes = append(notes, note)
		}
		off = next
	}
	return notes, errors.Join(errs...)
}

// noteAt decodes the note whose header is at off and returns it and the
// offset of the next one.
func noteAt(b []byte, off uint64, order binary.ByteOrder, align uint64) (Note, uint64, error) {
	n := uint64(len(b))
	namesz := uint64(order.Uint32(b[off:]))
	descsz := uint64(order.Uint32(b[off+4:]))
	typ := order.Uint32(b[off+8:])
	p := off + 12
	if namesz > n-p {
		return Note{}, 0, formatErr(off, "note name size %d exceeds the %d bytes left", namesz, n-p)
	}
	name := b[p : p+namesz]
	if !validNoteName(name) {
		return Note{}, 0, formatErr(off, "note %s: name size %d does not hold a NUL-terminated name (%q)", NoteTypeName(typ), namesz, name[:min(len(name), 16)])
	}
	p = alignUp(p+namesz, align)
	if p > n || descsz > n-p {
		return Note{}, 0, formatErr(off, "note %q %s: descriptor size %d exceeds the bytes left", cString(name), NoteTypeName(typ), descsz)
	}
	desc := b[p : p+descsz : p+descsz]
	return Note{Name: cString(name), Type: typ, Desc: desc, Off: off}, min(alignUp(p+descsz, align), n), nil
}

// validNoteName reports whether name is what the ELF gABI says a note's
// name is: text, then the terminating NUL (namesz counts it). NULs may
// pad it (Go's "Go\0\0"); anything after them means namesz is wrong.
func validNoteName(name []byte) bool {
	if len(name) == 0 {
		return true
	}
	i := bytes.IndexByte(name, 0)
	return i >= 0 && allZero(name[i:])
}

// resyncOwners are the owner names a resync looks for: the kernel's.
var resyncOwners = [][]byte{[]byte("CORE\x00"), []byte("LINUX\x00")}

// resyncNotes returns the offset at or after from of the next header
// that decodes as a note of a kernel owner, or len(b) when none does.
func resyncNotes(b []byte, from uint64, order binary.ByteOrder, align uint64) uint64 {
	for off := alignUp(from, 4); off+12 <= uint64(len(b)); off += 4 {
		namesz := uint64(order.Uint32(b[off:]))
		for _, owner := range resyncOwners {
			if namesz == uint64(len(owner)) && bytes.HasPrefix(b[off+12:], owner) {
				if _, _, err := noteAt(b, off, order, align); err == nil {
					return off
				}
			}
		}
	}
	return uint64(len(b))
}

func alignUp(v, a uint64) uint64 {
	r := (v + a - 1) &^ (a - 1)
	if r < v { // overflow
		return ^uint64(0)
	}
	return r
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// cString returns b up to its first NUL.
func cString(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

// noteTypeNames names the note types of "CORE" and "LINUX" notes.
var noteTypeNames = map[uint32]string{
	NTPrstatus: "NT_PRSTATUS", NTFPRegset: "NT_FPREGSET", NTPrpsinfo: "NT_PRPSINFO",
	NTTaskstruct: "NT_TASKSTRUCT", NTAuxv: "NT_AUXV", NTSiginfo: "NT_SIGINFO", NTFile: "NT_FILE",
	0x200: "NT_386_TLS", 0x201: "NT_386_IOPERM", NTX86XState: "NT_X86_XSTATE",
	0x204: "NT_X86_SHSTK", 0x205: "NT_X86_XSAVE_LAYOUT",
	0x100: "NT_PPC_VMX", 0x102: "NT_PPC_VSX", 0x400: "NT_ARM_VFP", 0x401: "NT_ARM_TLS",
	0x402: "NT_ARM_HW_BREAK", 0x403: "NT_ARM_HW_WATCH", 0x404: "NT_ARM_SYSTEM_CALL",
	0x405: "NT_ARM_SVE", 0x406: "NT_ARM_PAC_MASK", 0x300: "NT_S390_HIGH_GPRS",
}

// NoteTypeName names a core note type ("NT_PRSTATUS"), or prints it in hex
// when it has no name.
func NoteTypeName(typ uint32) string {
	if n, ok := noteTypeNames[typ]; ok {
		return n
	}
	return fmt.Sprintf("NT_0x%x", typ)
}
