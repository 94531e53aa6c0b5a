package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"sort"
)

// HP-UX 32-bit PA-RISC core records (<sys/core.h>): the file is a plain
// sequence of records, each a 16-byte big-endian header (type, space,
// addr, len) followed by len bytes; there is no magic number.
const (
	CORE_NONE       = 0x000
	CORE_FORMAT     = 0x001
	CORE_KERNEL     = 0x002
	CORE_PROC       = 0x004
	CORE_TEXT       = 0x008
	CORE_DATA       = 0x010
	CORE_STACK      = 0x020
	CORE_SHM        = 0x040
	CORE_MMF        = 0x080
	CORE_EXEC       = 0x100
	CORE_ANON_SHMEM = 0x200
)

// CoreheadSize is the size of a corehead record header.
const CoreheadSize = 16

// Corehead is one record header of a 32-bit HP-UX core.
type Corehead struct {
	Type  int32
	Space uint32 // PA-RISC space id of the object
	Addr  uint32 // its virtual address (offset within Space)
	Len   uint32 // payload bytes following the header
	Off   uint64 // file offset of the payload
}

// coreheadTypeName names the known record types; "" for others.
func coreheadTypeName(t int32) string {
	switch t {
	case CORE_NONE:
		return "CORE_NONE"
	case CORE_FORMAT:
		return "CORE_FORMAT"
	case CORE_KERNEL:
		return "CORE_KERNEL"
	case CORE_PROC:
		return "CORE_PROC"
	case CORE_TEXT:
		return "CORE_TEXT"
	case CORE_DATA:
		return "CORE_DATA"
	case CORE_STACK:
		return "CORE_STACK"
	case CORE_SHM:
		return "CORE_SHM"
	case CORE_MMF:
		return "CORE_MMF"
	case CORE_EXEC:
		return "CORE_EXEC"
	case CORE_ANON_SHMEM:
		return "CORE_ANON_SHMEM"
	}
	return ""
}

// isCorehead recognises a 32-bit HP-UX core by content: the first record
// has a known type other than CORE_NONE, its payload fits in the file, and
// a CORE_PROC record follows somewhere in the chain. It allocates nothing:
// every file that is not ELF comes here, and a run of zeros (a sparse or
// wiped file) would otherwise be one record per 16 bytes.
func isCorehead(data []byte) bool {
	if len(data) < CoreheadSize {
		return false
	}
	first := coreheadAt(data, 0)
	if first.Type == CORE_NONE || coreheadTypeName(first.Type) == "" {
		return false
	}
	if uint64(first.Len) > uint64(len(data))-CoreheadSize {
		return false
	}
	found := false
	walkCoreheads(data, func(h Corehead) bool {
		found = h.Type == CORE_PROC
		return !found
	})
	return found
}

// coreheadAt decodes the record header at off (off+CoreheadSize <= len(data)).
func coreheadAt(data []byte, off uint64) Corehead {
	o := binary.BigEndian
	b := data[off:]
	return Corehead{Type: int32(o.Uint32(b)), Space: o.Uint32(b[4:]), Addr: o.Uint32(b[8:]), Len: o.Uint32(b[12:]), Off: off + CoreheadSize}
}

// walkCoreheads calls yield for each record of the chain in file order
// until yield returns false. A header cut short by the end of the file, or
// a payload running past it, ends the walk with an error (the record with
// the short payload is yielded first). It keeps no record: a file of tiny
// records costs time, not memory.
func walkCoreheads(data []byte, yield func(Corehead) bool) error {
	for off := uint64(0); off < uint64(len(data)); {
		if uint64(len(data))-off < CoreheadSize {
			return formatErr(off, "corehead record header truncated: %d of %d bytes", uint64(len(data))-off, CoreheadSize)
		}
		h := coreheadAt(data, off)
		if !yield(h) {
			return nil
		}
		end := h.Off + uint64(h.Len)
		if end > uint64(len(data)) {
			return formatErr(off, "%s record: %d payload bytes, %d present", recordName(h.Type), h.Len, uint64(len(data))-h.Off)
		}
		off = end
	}
	return nil
}

// maxSkipWarnings bounds the warnings about skipped records: a hostile
// file can hold one record per 16 bytes.
const maxSkipWarnings = 8

// unknownRecordName names a record loadCorehead does not use: CORE_NONE,
// or an unknown type by number.
func unknownRecordName(t int32) string {
	if t == CORE_NONE {
		return "CORE_NONE record"
	}
	return fmt.Sprintf("unknown corehead record type %#x", uint32(t))
}

func recordName(t int32) string {
	if n := coreheadTypeName(t); n != "" {
		return n
	}
	return fmt.Sprintf("type %#x", uint32(t))
}

// proc_exec offsets: magic, the SOM exec auxiliary header (8-byte aux_id,
// then ten 32-bit fields), the command name.
const (
	execAuxOff  = 4
	execCmdOff  = 0x34
	execCmdSize = 15
)

// loadCorehead reads a 32-bit HP-UX PA-RISC core; *started is set to the
// Core as soon as it exists (see load).
func loadCorehead(data []byte, opts Options, started **Core) (*Core, error) {
	c := &Core{
		Format:     "som-hpux", // the report schema's name for the pre-ELF HP-UX core format
		OS:         "hpux",
		Machine:    elf.EM_PARISC,
		Arch:       "hppa",
		order:      binary.BigEndian,
		ptrSize:    4,
		data:       data,
		fileStatus: map[string]string{},
		HPUX:       &HPUXInfo{},
	}
	*started = c
	skipped := 0 // records not understood, warned about one by one up to maxSkipWarnings
	walkErr := walkCoreheads(data, func(h Corehead) bool {
		avail := min(uint64(h.Len), uint64(len(data))-h.Off)
		payload := data[h.Off : h.Off+avail]
		switch h.Type {
		case CORE_TEXT, CORE_DATA, CORE_STACK, CORE_SHM, CORE_MMF, CORE_ANON_SHMEM:
			if h.Len == 0 {
				return true // maps nothing; not kept (a file of empty records would be all segments)
			}
			flags := elf.PF_R | elf.PF_W
			if h.Type == CORE_TEXT {
				flags = elf.PF_R | elf.PF_X
			}
			c.addSegment(progHeader{Type: elf.PT_LOAD, Flags: flags, Off: h.Off, Vaddr: uint64(h.Addr), Filesz: uint64(h.Len), Memsz: uint64(h.Len)})
		case CORE_FORMAT:
			if len(payload) >= 4 {
				c.HPUX.Version = c.order.Uint32(payload)
			}
		case CORE_KERNEL:
			c.HPUX.Kernel = cStrings(payload[:min(len(payload), maxHPUXInfoSeg)])
		case CORE_PROC:
			if len(payload) < hpuxMinProc {
				c.warnf("CORE_PROC record at offset %#x: %d bytes, want at least %d: thread skipped", h.Off-CoreheadSize, len(payload), hpuxMinProc)
				return true
			}
			th, _ := hpuxThread(bytes.Clone(payload), c.order, c.Machine, len(c.Threads)+1)
			c.Threads = append(c.Threads, th)
		case CORE_EXEC:
			if len(payload) < execCmdOff {
				c.warnf("CORE_EXEC record at offset %#x: %d bytes, want at least %d", h.Off-CoreheadSize, len(payload), execCmdOff)
				return true
			}
			e := &HPUXExec{Magic: c.order.Uint32(payload)}
			aux := payload[execAuxOff+8:]
			fields := []*uint32{&e.TSize, &e.TMem, &e.TFile, &e.DSize, &e.DMem, &e.DFile, &e.BSize, &e.Entry, &e.Flags}
			for i, f := range fields {
				*f = c.order.Uint32(aux[4*i:])
			}
			e.Command = cString(payload[execCmdOff:min(len(payload), execCmdOff+execCmdSize)])
			c.HPUX.Exec = e
			c.Comm = e.Command
		default:
			if skipped++; skipped <= maxSkipWarnings {
				c.warnf("%s at offset %#x (%d bytes) skipped", unknownRecordName(h.Type), h.Off-CoreheadSize, h.Len)
			}
		}
		return true
	})
	if skipped > maxSkipWarnings {
		c.warnf("%d more corehead records skipped", skipped-maxSkipWarnings)
	}
	if walkErr != nil {
		c.warnf("core truncated: %v", walkErr)
	}
	if len(c.Threads) == 0 {
		return nil, fmt.Errorf("%w: HP-UX corehead core without a readable CORE_PROC record", ErrNotCore)
	}
	sort.SliceStable(c.ranges, func(i, j int) bool { return c.ranges[i].start < c.ranges[j].start })
	c.finishHPUXThreads()
	c.hpuxExecutableMappings(opts)
	c.findModules(opts)
	if c.Executable = opts.Executable; c.Executable == "" {
		c.Executable = c.Comm
	}
	return c, nil
}
