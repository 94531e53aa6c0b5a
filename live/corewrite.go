package live

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
)

// The snapshot as an ELF core: what corefile reads for the report, and
// what --dump writes for gdb and eu-stack. One writer for both; they
// differ in which memory the segments hold.

// pageSize is x86's: segments' data starts on page boundaries in the
// file, as the kernel lays cores out (readers may map them).
const pageSize = 4096

// loadSeg is one PT_LOAD of the core: memsz bytes of the process at
// addr, of which the first size are in the file: data when the bytes
// are held, else read from the process as they are written.
type loadSeg struct {
	addr, memsz uint64
	flags       elf.ProgFlag
	size        uint64
	data        []byte
	// anonymous: private anonymous memory, whose pages the process
	// never touched are zeros (not a file's bytes) and are left unread.
	anonymous bool
}

func progFlags(m mapping) elf.ProgFlag {
	var f elf.ProgFlag
	if m.readable() {
		f |= elf.PF_R
	}
	if m.writable() {
		f |= elf.PF_W
	}
	if m.executable() {
		f |= elf.PF_X
	}
	return f
}

// snapshotSegments: one segment per mapping, split where the snapshot
// copied memory: the copies hold bytes, the rest holds none (corefile
// reads it from the process or the files).
func (s *Snapshot) snapshotSegments() []loadSeg {
	var segs []loadSeg
	ci := 0
	for _, m := range s.Maps {
		at := m.Start
		for ci < len(s.Copies) && s.Copies[ci].Addr+uint64(len(s.Copies[ci].Data)) <= m.Start {
			ci++
		}
		for j := ci; j < len(s.Copies) && s.Copies[j].Addr < m.End; j++ {
			c := s.Copies[j]
			lo := max(c.Addr, m.Start)
			hi := min(c.Addr+uint64(len(c.Data)), m.End)
			if lo >= hi {
				continue
			}
			if lo > at {
				segs = append(segs, loadSeg{addr: at, memsz: lo - at, flags: progFlags(m)})
			}
			d := c.Data[lo-c.Addr : hi-c.Addr]
			segs = append(segs, loadSeg{addr: lo, memsz: hi - lo, flags: progFlags(m), size: hi - lo, data: d})
			at = hi
		}
		if at < m.End {
			segs = append(segs, loadSeg{addr: at, memsz: m.End - at, flags: progFlags(m)})
		}
	}
	return segs
}

// CoreBytes is the snapshot as an ELF core in memory: notes, and the
// memory copied while the process was stopped.
func (s *Snapshot) CoreBytes() ([]byte, error) {
	segs := s.snapshotSegments()
	var buf writerBuffer
	if err := s.writeCore(&buf, segs, 0); err != nil {
		return nil, err
	}
	return buf.b, nil
}

type writerBuffer struct{ b []byte }

func (w *writerBuffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// writeCore writes the ELF core (stopSig: see notes): header, program headers (the notes'
// first), notes, then each segment's bytes from a page boundary.
func (s *Snapshot) writeCore(out io.Writer, segs []loadSeg, stopSig int) error {
	notes := s.notes(stopSig)
	phnum := 1 + len(segs)
	if phnum >= 0xffff { // PN_XNUM: the count would go to a section header
		return fmt.Errorf("%d memory mappings: more than an ELF core's program header count holds", len(segs))
	}
	is64 := s.Class == elf.ELFCLASS64
	ehsize, phentsize := 52, 32
	if is64 {
		ehsize, phentsize = 64, 56
	}
	notesOff := uint64(ehsize + phnum*phentsize)
	off := alignUp(notesOff+uint64(len(notes)), pageSize)
	w := newCoreOutput(out)
	ident := [elf.EI_NIDENT]byte{0x7f, 'E', 'L', 'F', byte(s.Class), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)}
	if is64 {
		binary.Write(w, le, elf.Header64{Ident: ident, Type: uint16(elf.ET_CORE), Machine: uint16(s.Machine), Version: uint32(elf.EV_CURRENT),
			Phoff: uint64(ehsize), Ehsize: uint16(ehsize), Phentsize: uint16(phentsize), Phnum: uint16(phnum)})
		binary.Write(w, le, elf.Prog64{Type: uint32(elf.PT_NOTE), Off: notesOff, Filesz: uint64(len(notes)), Align: 4})
	} else {
		binary.Write(w, le, elf.Header32{Ident: ident, Type: uint16(elf.ET_CORE), Machine: uint16(s.Machine), Version: uint32(elf.EV_CURRENT),
			Phoff: uint32(ehsize), Ehsize: uint16(ehsize), Phentsize: uint16(phentsize), Phnum: uint16(phnum)})
		binary.Write(w, le, elf.Prog32{Type: uint32(elf.PT_NOTE), Off: uint32(notesOff), Filesz: uint32(len(notes)), Align: 4})
	}
	for _, sg := range segs {
		if is64 {
			binary.Write(w, le, elf.Prog64{Type: uint32(elf.PT_LOAD), Flags: uint32(sg.flags), Off: off, Vaddr: sg.addr,
				Filesz: sg.size, Memsz: sg.memsz, Align: pageSize})
		} else {
			binary.Write(w, le, elf.Prog32{Type: uint32(elf.PT_LOAD), Flags: uint32(sg.flags), Off: uint32(off), Vaddr: uint32(sg.addr),
				Filesz: uint32(sg.size), Memsz: uint32(sg.memsz), Align: pageSize})
		}
		off += sg.size
	}
	w.Write(notes)
	w.zeros(int(alignUp(notesOff+uint64(len(notes)), pageSize) - (notesOff + uint64(len(notes)))))
	var pm *pagemap
	defer pm.close()
	for _, sg := range segs {
		if sg.anonymous && pm == nil {
			pm = openPagemap(s.dir)
		}
		if err := s.writeSegment(w, sg, pm); err != nil {
			return err
		}
	}
	return w.finish()
}

// writeSegment writes a segment's bytes: held ones, or the process's
// read a chunk at a time. Pages of anonymous memory the process never
// touched (pm says which) are not read; they, pages of zeros, and pages
// the process cannot give (a file truncated under its mapping) are
// zeros in the core: holes where out is a file.
func (s *Snapshot) writeSegment(w *coreOutput, sg loadSeg, pm *pagemap) error {
	if sg.data != nil {
		_, err := w.Write(sg.data[:sg.size])
		return err
	}
	const chunk = 1 << 20
	buf := make([]byte, min(sg.size, chunk))
	for done := uint64(0); done < sg.size; {
		if s.stop != nil && s.stop.Err() != nil {
			return fmt.Errorf("process %d: %w while writing its core (every thread was let go)", s.PID, ErrInterrupted)
		}
		addr := sg.addr + done
		p := buf[:min(uint64(len(buf)), sg.size-done)]
		if sg.anonymous {
			if has, ok := pm.has(addr, int(alignUp(uint64(len(p)), pageSize)/pageSize)); ok {
				// Up to the next change between pages it has and not.
				n := 1
				for n < len(has) && has[n] == has[0] {
					n++
				}
				p = p[:min(len(p), n*pageSize)]
				if !has[0] {
					w.zeros(len(p))
					done += uint64(len(p))
					continue
				}
			}
		}
		got := s.mem.readFull(addr, p)
		if err := w.data(p[:got]); err != nil {
			return err
		}
		if got < len(p) {
			// The page at got cannot be read: zeros; the next may read.
			bad := min(alignUp(uint64(got)+1, pageSize), uint64(len(p))) - uint64(got)
			w.zeros(int(bad))
			got += int(bad)
		}
		done += uint64(got)
	}
	return nil
}

func alignUp(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }
