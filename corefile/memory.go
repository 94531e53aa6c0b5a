package corefile

import (
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/internal/mapfault"
	"github.com/coreunwind/coreunwind/unwind"
)

// Segment is one PT_LOAD program header of the core: a mapping of the
// process. Only the first Filesz bytes are in the core; the rest of Memsz
// was not dumped (file-backed read-only pages, or excluded by
// coredump_filter).
type Segment struct {
	Vaddr, Memsz, Filesz, Offset uint64
	Flags                        elf.ProgFlag // elf.PF_R, PF_W, PF_X
}

// Present is how many bytes from s.Vaddr the core file holds: s.Filesz,
// less where the file was cut short.
func (c *Core) Present(s Segment) uint64 {
	if i := c.findRange(s.Vaddr); i >= 0 && c.ranges[i].start == s.Vaddr {
		return c.ranges[i].avail
	}
	return 0
}

// memRange is a Segment prepared for lookup: [start, end) in the process,
// of which the first avail bytes are present in the core data at off (less
// than filesz when the core file is truncated).
type memRange struct {
	start, end uint64
	off        uint64
	avail      uint64
	filesz     uint64 // what the kernel dumped, capped at end-start
	flags      elf.ProgFlag
}

// overlay is a file-backed mapping whose file was found and accepted:
// [start, end) reads data[off+(addr-start)] where the core lacks bytes.
type overlay struct {
	start, end uint64
	off        uint64
	data       []byte
	path       string
	exec       bool // the file's PT_LOAD for this range is executable
}

// ByteOrder is the target's byte order (unwind.AddrSpace).
func (c *Core) ByteOrder() binary.ByteOrder { return c.order }

// PtrSize is the target's pointer size in bytes (unwind.AddrSpace).
func (c *Core) PtrSize() int { return c.ptrSize }

// ReadMem fills p with the process's memory at addr: from the core where
// it has the bytes, else from the accepted file of a file-backed mapping.
// Any byte that neither provides makes it return an error wrapping
// unwind.ErrUnavailable. It does not allocate unless it fails.
func (c *Core) ReadMem(addr uint64, p []byte) error {
	return c.read(addr, p, true)
}

// readCore is ReadMem without the file overlay: what the core itself
// recorded. Build IDs are taken from here so that a file on disk can be
// checked against the core.
func (c *Core) readCore(addr uint64, p []byte) error {
	return c.read(addr, p, false)
}

func (c *Core) read(addr uint64, p []byte, files bool) error {
	for len(p) > 0 {
		n, err := c.readPiece(addr, p, files)
		if err != nil {
			return fmt.Errorf("0x%x: %w: %w", addr, unwind.ErrUnavailable, err)
		}
		if n == 0 {
			return c.unavailable(addr, files)
		}
		p = p[n:]
		if len(p) > 0 && addr+uint64(n) < addr {
			return fmt.Errorf("0x%x: %w: read wraps around the address space", addr, unwind.ErrUnavailable)
		}
		addr += uint64(n)
	}
	return nil
}

// readPiece copies the longest prefix of p available from one source at
// addr and returns its length (0: nothing available at addr). The sources
// are mapped files: one truncated since it was mapped faults, which is an
// error naming the file.
func (c *Core) readPiece(addr uint64, p []byte, files bool) (int, error) {
	limit := ^uint64(0)
	i := c.findRange(addr)
	if i >= 0 {
		r := &c.ranges[i]
		d := addr - r.start
		if d < r.avail {
			if c.lazy != nil {
				if c.lazy.fill(r.off+d, min(uint64(len(p)), r.avail-d)) != nil {
					return 0, nil
				}
				return copy(p, c.data[r.off+d:r.off+r.avail]), nil
			}
			n, err := mapfault.Copy(p, c.data[r.off+d:r.off+r.avail])
			if err != nil {
				return 0, fmt.Errorf("core file %s: %w", c.Path, err)
			}
			return n, nil
		}
		if d < r.filesz {
			// Dumped by the kernel but cut off from this file: the page
			// may differ from the file (written private mapping), so the
			// file must not stand in for it.
			return 0, nil
		}
		limit = r.end
	} else if next := c.nextRange(addr); next < len(c.ranges) {
		limit = c.ranges[next].start
	}
	if c.process != nil {
		n := uint64(len(p))
		if limit != ^uint64(0) {
			n = min(n, limit-addr)
		}
		if got := c.process.ReadProcess(addr, p[:n]); got > 0 {
			return got, nil
		}
	}
	if !files {
		return 0, nil
	}
	j := c.findOverlay(addr)
	if j < 0 {
		return 0, nil
	}
	o := &c.overlays[j]
	fo := o.off + (addr - o.start)
	if fo < o.off || fo >= uint64(len(o.data)) {
		return 0, nil
	}
	n := uint64(len(p))
	n = min(n, o.end-addr, uint64(len(o.data))-fo)
	if limit != ^uint64(0) {
		n = min(n, limit-addr)
	}
	copied, err := mapfault.Copy(p[:n], o.data[fo:])
	if err != nil {
		return 0, fmt.Errorf("file %s: %w", o.path, err)
	}
	return copied, nil
}

// findRange returns the index of the segment containing addr, or -1.
func (c *Core) findRange(addr uint64) int {
	if i := int(c.lastRange.Load()) - 1; i >= 0 && i < len(c.ranges) {
		// The binary search's answer too: the last range starting at or
		// below addr (ranges may overlap in a hostile core).
		r := &c.ranges[i]
		if r.start <= addr && addr < r.end && (i+1 == len(c.ranges) || c.ranges[i+1].start > addr) {
			return i
		}
	}
	i := c.nextRange(addr) - 1
	if i >= 0 && addr < c.ranges[i].end {
		c.lastRange.Store(int32(i + 1))
		return i
	}
	return -1
}

// nextRange returns the index of the first segment starting above addr.
func (c *Core) nextRange(addr uint64) int {
	lo, hi := 0, len(c.ranges)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.ranges[m].start <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (c *Core) findOverlay(addr uint64) int {
	lo, hi := 0, len(c.overlays)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.overlays[m].start <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if i := lo - 1; i >= 0 && addr < c.overlays[i].end {
		return i
	}
	return -1
}

// unavailable builds the error for a byte nobody has, saying why.
func (c *Core) unavailable(addr uint64, files bool) error {
	var why string
	i := c.findRange(addr)
	m := c.mappingAt(addr)
	switch {
	case i >= 0 && addr-c.ranges[i].start < c.ranges[i].filesz:
		return fmt.Errorf("0x%x: %w: %w", addr, unwind.ErrUnavailable, ErrTruncated)
	case m != nil && !files:
		why = "not in core"
	case m != nil:
		st, ok := c.fileStatus[m.Path]
		switch {
		case !ok:
			why = fmt.Sprintf("not in core, file %s not used (not an ELF module)", m.Path)
		case st == "":
			why = fmt.Sprintf("not in core, beyond the end of file %s", m.Path)
		default:
			why = fmt.Sprintf("not in core, file %s %s", m.Path, st)
		}
	case i >= 0:
		r := c.ranges[i]
		why = fmt.Sprintf("not in core (mapping 0x%x-0x%x has %d of %d bytes dumped)", r.start, r.end, r.avail, r.end-r.start)
	default:
		why = "not mapped in the process"
	}
	return fmt.Errorf("0x%x: %w: %s", addr, unwind.ErrUnavailable, why)
}

// mappingAt returns the NT_FILE mapping containing addr, or nil.
func (c *Core) mappingAt(addr uint64) *Mapping {
	lo, hi := 0, len(c.Mappings)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.Mappings[m].Start <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if i := lo - 1; i >= 0 && addr < c.Mappings[i].End {
		return &c.Mappings[i]
	}
	return nil
}

// IsCode reports whether addr lies in an executable mapping of the process
// (unwind.CodeChecker): the kernel writes a PT_LOAD with the mapping's
// permissions for every mapping, dumped or not.
//
// Where the core has no segment for addr (gdb's gcore leaves file-backed
// text out of its program headers altogether), the mapped file's own
// program headers say whether the process mapped that range executable.
func (c *Core) IsCode(addr uint64) bool {
	code, _ := c.CodeAt(addr)
	return code
}

// CodeAt is IsCode, and whether the answer is known: false when neither a
// core segment nor an accepted file describes addr.
func (c *Core) CodeAt(addr uint64) (code, known bool) {
	if i := c.findRange(addr); i >= 0 {
		return c.ranges[i].flags&elf.PF_X != 0, true
	}
	if j := c.findOverlay(addr); j >= 0 {
		return c.overlays[j].exec, true
	}
	return false, false
}
