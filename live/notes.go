package live

import (
	"path/filepath"
	"strings"
)

// The core's notes, laid out as the kernel writes them (see corefile's
// prstatus.go and prpsinfo.go for the layouts by class).

// Note types (elf.h).
const (
	ntPRPSInfo = 3
	ntAuxv     = 6
	ntFile     = 0x46494c45
)

// noteWriter appends ELF notes, 4-byte aligned.
type noteWriter struct{ b []byte }

// add appends a note named "CORE", as the kernel names the notes that
// predate the register sets of ptrace (and NT_PRFPREG).
func (n *noteWriter) add(typ uint32, desc []byte) { n.addNamed("CORE", typ, desc) }

// addNamed appends a note named name: "LINUX" for the kernel's later
// register sets (NT_X86_XSTATE, NT_PRXFPREG), which readers look for
// under that name.
func (n *noteWriter) addNamed(name string, typ uint32, desc []byte) {
	n.b = le.AppendUint32(n.b, uint32(len(name)+1))
	n.b = le.AppendUint32(n.b, uint32(len(desc)))
	n.b = le.AppendUint32(n.b, typ)
	n.b = append(n.b, name...)
	n.b = append(n.b, 0)
	n.pad()
	n.b = append(n.b, desc...)
	n.pad()
}

func (n *noteWriter) pad() {
	for len(n.b)%4 != 0 {
		n.b = append(n.b, 0)
	}
}

// notes are the snapshot's: per thread NT_PRSTATUS (and NT_PRFPREG,
// NT_PRXFPREG and NT_X86_XSTATE when read), then NT_PRPSINFO, NT_AUXV,
// NT_FILE and NT_X86_XSAVE_LAYOUT, as the kernel orders them. stopSig, when not 0, is the signal recorded for threads that were
// receiving none: a dump records SIGSTOP as gdb's gcore does, which tells
// readers that no thread crashed.
func (s *Snapshot) notes(stopSig int) []byte {
	var n noteWriter
	for _, th := range s.Threads {
		if th.Signal == 0 {
			th.Signal = stopSig
		}
		n.add(ntPRStatus, s.prstatus(th))
		if th.FPRegs != nil {
			n.add(ntPRFPReg, th.FPRegs)
		}
		if th.XFPRegs != nil {
			n.addNamed("LINUX", ntPRXFPReg, th.XFPRegs)
		}
		if th.XState != nil {
			n.addNamed("LINUX", ntX86XState, th.XState)
		}
	}
	n.add(ntPRPSInfo, s.prpsinfo())
	if len(s.Auxv) > 0 {
		n.add(ntAuxv, s.Auxv)
	}
	n.add(ntFile, s.ntFile())
	// After every other note, as the kernel writes it.
	if len(s.Threads) > 0 {
		if layout := xsaveLayout(s.Threads[0].XState); layout != nil {
			n.addNamed("LINUX", ntX86XSaveLayout, layout)
		}
	}
	return n.b
}

// prstatus is a thread's struct elf_prstatus: its pending signal, ids
// and registers.
func (s *Snapshot) prstatus(th Thread) []byte {
	ptr := s.ptrSize()
	regOff := 72
	if ptr == 8 {
		regOff = 112
	}
	d := make([]byte, regOff+len(th.Regs)+ptr)
	le.PutUint16(d[12:], uint16(th.Signal)) // pr_cursig
	ids := d[24:]
	if ptr == 8 {
		ids = d[32:]
	}
	le.PutUint32(ids[0:], uint32(th.TID))
	le.PutUint32(ids[4:], uint32(s.Status.PPID))
	copy(d[regOff:], th.Regs)
	if th.FPRegs != nil {
		le.PutUint32(d[regOff+len(th.Regs):], 1) // pr_fpvalid
	}
	return d
}

// prpsinfo is the process's struct elf_prpsinfo: x86_64's 136 bytes or
// i386's 124 (16-bit uids).
func (s *Snapshot) prpsinfo() []byte {
	var d []byte
	var idOff, fnameOff int
	if s.ptrSize() == 8 {
		d = make([]byte, 136)
		le.PutUint32(d[16:], uint32(s.Status.UID))
		idOff, fnameOff = 24, 40
	} else {
		d = make([]byte, 124)
		le.PutUint16(d[8:], uint16(s.Status.UID))
		idOff, fnameOff = 12, 28
	}
	d[0] = stateNumber(s.Status.State)
	d[1] = s.Status.State
	le.PutUint32(d[idOff:], uint32(s.PID))
	le.PutUint32(d[idOff+4:], uint32(s.Status.PPID))
	copy(d[fnameOff:fnameOff+15], s.Status.Name)
	copy(d[fnameOff+16:fnameOff+16+79], s.Cmdline)
	return d
}

// stateNumber is pr_state: the index of the state letter in the
// kernel's "RSDTZW" order.
func stateNumber(c byte) byte {
	if i := strings.IndexByte("RSDTZW", c); i >= 0 {
		return byte(i)
	}
	return 0
}

// ntFile lists the file-backed mappings as the kernel's NT_FILE does:
// count, page size, (start, end, offset in pages) each, then the names.
func (s *Snapshot) ntFile() []byte {
	ptr := s.ptrSize()
	word := func(b []byte, v uint64) []byte {
		if ptr == 8 {
			return le.AppendUint64(b, v)
		}
		return le.AppendUint32(b, uint32(v))
	}
	var files []mapping
	for _, m := range s.Maps {
		if m.fileBacked() {
			files = append(files, m)
		}
	}
	d := word(nil, uint64(len(files)))
	d = word(d, pageSize)
	for _, m := range files {
		d = word(d, m.Start)
		d = word(d, m.End)
		d = word(d, m.Offset/pageSize)
	}
	for _, m := range files {
		d = append(d, m.Path...)
		d = append(d, 0)
	}
	return d
}

// exePath is the process's executable as the kernel names it (through
// /proc/PID/exe, which reaches it even when deleted or in a container).
func (s *Snapshot) exePath() string { return filepath.Join(s.dir, "exe") }
