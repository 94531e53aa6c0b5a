package elfx

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// unwindTables is the lazily parsed call frame information of an object.
type unwindTables struct {
	eh, debug *cfi.Table
	err       error
}

// UnwindTables returns the object's .eh_frame (indexed by .eh_frame_hdr
// when present) and .debug_frame tables, parsing them on first use. Either
// may be nil. .eh_frame always comes from the binary (a debug file's copy
// is SHT_NOBITS); .debug_frame from the binary or, failing that, the
// debug file. err reports a table that exists but could not be parsed;
// the other table is still returned.
func (o *Object) UnwindTables() (eh *cfi.Table, debug *cfi.Table, err error) {
	return o.unwindTables(o.state())
}

// unwindTables returns the tables of one state of o's lazily parsed data.
func (o *Object) unwindTables(d *derived) (eh *cfi.Table, debug *cfi.Table, err error) {
	d.unwindOnce.Do(func() { d.unwind = o.loadUnwindTables() })
	return d.unwind.eh, d.unwind.debug, d.unwind.err
}

// FindFDE returns the FDE covering addr (link-time), looking in .eh_frame
// first and .debug_frame second. When neither covers it the error wraps
// cfi.ErrNoFDE.
func (o *Object) FindFDE(addr uint64) (*cfi.FDE, error) {
	d := o.state()
	fde, err := o.findFDE(d, addr)
	if errors.Is(err, cfi.ErrNoFDE) {
		// The debug file's .debug_frame may cover what .eh_frame does
		// not. Attaching it (here, or by a lookup running beside this
		// one) rebuilds the tables: look again in the new ones.
		o.attachDeferredDebugFile()
		if now := o.state(); now != d {
			fde, err = o.findFDE(now, addr)
		}
	}
	return fde, err
}

func (o *Object) findFDE(d *derived, addr uint64) (*cfi.FDE, error) {
	eh, dbg, terr := o.unwindTables(d)
	var errs []error
	for _, t := range []*cfi.Table{eh, dbg} {
		if t == nil {
			continue
		}
		fde, err := t.FDEForPC(addr)
		if err == nil {
			return fde, nil
		}
		if !errors.Is(err, cfi.ErrNoFDE) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("elfx: %s: FDE for %#x: %w", o.name, addr, errors.Join(errs...))
	}
	if terr != nil {
		return nil, fmt.Errorf("elfx: %s: no FDE for %#x (%w): %w", o.name, addr, terr, cfi.ErrNoFDE)
	}
	return nil, fmt.Errorf("elfx: %s: %#x: %w", o.name, addr, cfi.ErrNoFDE)
}

func (o *Object) loadUnwindTables() (u unwindTables) {
	defer func() {
		if p := recover(); p != nil {
			mapfault.Reraise(p)
			u = unwindTables{err: fmt.Errorf("elfx: %s: malformed unwind tables (%v)", o.name, p)}
		}
	}()
	var errs []error
	order, ptr := o.ef.ByteOrder, o.PtrSize()

	ehData, ehAddr, hdrData, hdrAddr, err := o.ehFrameData()
	if err != nil {
		errs = append(errs, err)
	}
	if ehData != nil {
		t, err := cfi.NewEHFrame(ehData, ehAddr, hdrData, hdrAddr, order, ptr)
		if err != nil {
			errs = append(errs, fmt.Errorf("elfx: %s: .eh_frame: %w", o.name, err))
		} else {
			u.eh = t
		}
	}

	// A deferred debug file is not looked for here: FindFDE attaches it
	// when .eh_frame misses.
	for _, src := range []*Object{o, o.attachedDebug()} {
		if src == nil {
			continue
		}
		s := src.section(".debug_frame")
		if s == nil {
			continue
		}
		data, err := src.sectionData(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		t, err := cfi.NewDebugFrame(data, s.Addr, order, ptr)
		if err != nil {
			errs = append(errs, fmt.Errorf("elfx: %s: .debug_frame: %w", src.name, err))
			continue
		}
		u.debug = t
		break
	}
	if u.debug == nil {
		u.debug = o.goDebugFrame()
	}
	u.err = errors.Join(errs...)
	return u
}

// ehFrameData finds .eh_frame and .eh_frame_hdr by section name or, for
// images without section headers (a library read back from memory), via
// PT_GNU_EH_FRAME.
func (o *Object) ehFrameData() (eh []byte, ehAddr uint64, hdr []byte, hdrAddr uint64, err error) {
	if s := o.section(".eh_frame_hdr"); s != nil {
		if b, err := o.sectionData(s); err == nil {
			hdr, hdrAddr = b, s.Addr
		}
	}
	if s := o.section(".eh_frame"); s != nil {
		eh, err = o.sectionData(s)
		if err != nil {
			return nil, 0, nil, 0, err
		}
		return eh, s.Addr, hdr, hdrAddr, nil
	}
	for _, p := range o.ef.Progs {
		if p.Type != elf.PT_GNU_EH_FRAME {
			continue
		}
		hdr, err := o.readSegment(p.Off, p.Filesz, p.Filesz)
		if err != nil || len(hdr) < 8 {
			return nil, 0, nil, 0, fmt.Errorf("elfx: %s: PT_GNU_EH_FRAME unreadable", o.name)
		}
		// Only the encoding every toolchain emits is accepted here:
		// eh_frame_ptr as a pc-relative signed 4-byte value.
		const pcrelSdata4 = 0x1b
		if hdr[0] != 1 || hdr[1] != pcrelSdata4 {
			return nil, 0, nil, 0, fmt.Errorf("elfx: %s: .eh_frame_hdr version %d / encoding %#x not supported without section headers", o.name, hdr[0], hdr[1])
		}
		ehAddr = p.Vaddr + 4 + uint64(int64(int32(o.ef.ByteOrder.Uint32(hdr[4:]))))
		for _, l := range o.loads {
			if ehAddr >= l.Vaddr && ehAddr-l.Vaddr < l.Filesz {
				off := l.Off + (ehAddr - l.Vaddr)
				eh, err := o.readSegment(off, l.Filesz-(ehAddr-l.Vaddr), uint64(o.size))
				if err != nil {
					return nil, 0, nil, 0, err
				}
				return eh, ehAddr, hdr, p.Vaddr, nil
			}
		}
		return nil, 0, nil, 0, fmt.Errorf("elfx: %s: .eh_frame at %#x is outside every PT_LOAD", o.name, ehAddr)
	}
	return nil, 0, nil, 0, nil
}

// readSegment reads n bytes at file offset off, refusing sizes beyond
// limit or the end of the file.
func (o *Object) readSegment(off, n, limit uint64) ([]byte, error) {
	if n > limit || off > uint64(o.size) || n > uint64(o.size)-off {
		return nil, fmt.Errorf("elfx: %s: %d bytes at offset %#x run past the end of the image (%d bytes)", o.name, n, off, o.size)
	}
	if o.mapped != nil {
		return o.mapped[off : off+n : off+n], nil
	}
	buf := make([]byte, n)
	if got, err := o.src.ReadAt(buf, int64(off)); got != len(buf) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("elfx: %s: read %d bytes at %#x: %w", o.name, n, off, err)
	}
	return buf, nil
}
