// Package hpux writes HP-UX core files for tests, in the layouts
// coreunwind reads (shared/docs hpux-cores.md): ELF64 cores made of
// PT_HP_CORE_* segments (PA-RISC 2.0W and IA-64), the 32-bit PA-RISC
// corehead format, and the PA-RISC proc_info / save_state_t records both
// carry. Everything is big-endian, as on HP-UX. Tests only.
package hpux

import (
	"debug/elf"
	"encoding/binary"

	"github.com/coreunwind/coreunwind/internal/elfcore"
)

var be = binary.BigEndian

// PT_HP_CORE_* program header types.
const (
	PTNone     = 0x60000001
	PTVersion  = 0x60000002
	PTKernel   = 0x60000003
	PTComm     = 0x60000004
	PTProc     = 0x60000005
	PTLoadable = 0x60000006
	PTStack    = 0x60000007
	PTShm      = 0x60000008
	PTMmf      = 0x60000009
	PTUtsname  = 0x60000015
)

// Segment is one program header and its bytes.
type Segment struct {
	Type  uint32
	Vaddr uint64
	Data  []byte
	Flags elf.ProgFlag
}

// ELF64 lays out an ET_CORE ELF64 big-endian file: header, program
// headers, then each segment's data 8-byte aligned.
func ELF64(machine elf.Machine, osabi elf.OSABI, eflags uint32, segs []Segment) []byte {
	f := &elfcore.File{Class: elf.ELFCLASS64, Order: be, Machine: machine, OSABI: osabi, Flags: eflags, Align: 8}
	for _, s := range segs {
		f.Segments = append(f.Segments, elfcore.Segment{Type: elf.ProgType(s.Type), Flags: s.Flags, Vaddr: s.Vaddr, Data: s.Data})
	}
	return f.Bytes()
}

// corehead record types.
const (
	CoreFormat = 0x001
	CoreKernel = 0x002
	CoreProc   = 0x004
	CoreText   = 0x008
	CoreData   = 0x010
	CoreStack  = 0x020
	CoreShm    = 0x040
	CoreMmf    = 0x080
	CoreExec   = 0x100
	CoreAnon   = 0x200
)

// Record is one corehead record.
type Record struct {
	Type  int32
	Space uint32
	Addr  uint32
	Data  []byte
}

// Corehead concatenates records as the 32-bit HP-UX core format does:
// a 16-byte header (type, space, addr, len), then the payload, no padding.
func Corehead(recs []Record) []byte {
	var b []byte
	for _, r := range recs {
		var h [16]byte
		be.PutUint32(h[0:], uint32(r.Type))
		be.PutUint32(h[4:], r.Space)
		be.PutUint32(h[8:], r.Addr)
		be.PutUint32(h[12:], uint32(len(r.Data)))
		b = append(append(b, h[:]...), r.Data...)
	}
	return b
}

// ProcExec builds CORE_EXEC's struct proc_exec: magic, SOM exec
// auxiliary header (aux_id, tsize, tmem, tfile, dsize, dmem, dfile,
// bsize, entry, flags, bfill), the command name.
func ProcExec(magic uint32, tmem, tsize, entry uint32, cmd string) []byte {
	b := make([]byte, 0x44)
	be.PutUint32(b, magic)
	aux := b[4+8:]
	be.PutUint32(aux[0:], tsize)
	be.PutUint32(aux[4:], tmem)
	be.PutUint32(aux[28:], entry)
	copy(b[0x34:0x34+14], cmd)
	return b
}
