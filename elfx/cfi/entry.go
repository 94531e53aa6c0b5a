package cfi

import (
	"encoding/binary"
	"strings"
)

// CIE is a Common Information Entry: what a group of FDEs share.
type CIE struct {
	Offset       uint64 // offset of the entry's length field in its section
	Version      uint8  // 1 or 3 (.eh_frame), 1, 3 or 4 (.debug_frame)
	Augmentation string
	CodeAlign    uint64
	DataAlign    int64
	RAColumn     uint64 // the return-address register column
	Initial      []byte // initial instructions (aliases the section data)

	FDEEncoding  uint8 // DW_EH_PE_* for FDE addresses ('R'; absptr otherwise)
	LSDAEncoding uint8 // DW_EH_PE_* for FDE LSDA pointers ('L'; PEOmit otherwise)
	// Personality is the personality routine ('P'). When
	// PersonalityEncoding has PEIndirect set it is the link-time address of
	// the pointer to the routine, which the caller must read.
	Personality         uint64
	PersonalityEncoding uint8
	Signal              bool  // 'S': FDEs describe signal trampolines
	BTI                 bool  // 'B': AArch64 branch target identification
	AddrSize            uint8 // address size (CIE v4, otherwise the table's pointer size)
	SegmentSize         uint8 // segment selector size (CIE v4), 0 otherwise

	// Everything needed to run instructions without the Table.
	section  string
	order    binary.ByteOrder
	ptrSize  int
	is64     bool
	initAddr uint64 // link-time address of Initial (for pcrel set_loc)
	initial  state  // the state after Initial: what restore returns to
	initErr  error
}

// FDE is a Frame Description Entry: the unwind rules for [Begin, End).
type FDE struct {
	Offset       uint64 // offset of the entry's length field in its section
	CIE          *CIE
	Begin, End   uint64 // link-time addresses, End exclusive
	LSDA         uint64 // language-specific data area, 0 if none (see CIE.LSDAEncoding for indirect)
	Instructions []byte // aliases the section data

	instrAddr uint64   // link-time address of Instructions (for pcrel set_loc)
	rows      *rowMemo // RowAt's results; nil: none kept (an FDE not found by address)
}

// Signal reports whether the FDE describes a signal trampoline (its CIE
// has the 'S' augmentation): the frame it interrupted keeps its exact PC.
func (f *FDE) Signal() bool { return f.CIE != nil && f.CIE.Signal }

// entryHeader is the part common to CIEs and FDEs.
type entryHeader struct {
	off     uint64 // offset of the length field
	end     uint64 // offset just past the entry
	body    uint64 // offset just past the CIE id / CIE pointer field
	idPos   uint64 // offset of the CIE id / CIE pointer field
	id      uint64 // the CIE id / CIE pointer value
	is64    bool
	isCIE   bool
	zero    bool // a zero terminator (length 0)
	cieOffs uint64
}

// parseHeader reads the length and CIE id / pointer of the entry at off.
func (t *Table) parseHeader(off uint64) (entryHeader, error) {
	h := entryHeader{off: off}
	if off >= uint64(len(t.data)) {
		return h, formatErr(t.section, off, "entry offset beyond the section")
	}
	r := reader{b: t.data, pos: int(off), order: t.order}
	l32, err := r.u32()
	if err != nil {
		return h, formatErr(t.section, off, "truncated entry length")
	}
	length := uint64(l32)
	if l32 == 0xffffffff {
		h.is64 = true
		if length, err = r.u64(); err != nil {
			return h, formatErr(t.section, off, "truncated 64-bit entry length")
		}
	} else if l32 >= 0xfffffff0 {
		return h, formatErr(t.section, off, "reserved entry length %#x", l32)
	}
	if length == 0 {
		h.zero = true
		h.end = uint64(r.pos)
		return h, nil
	}
	if length > uint64(r.remaining()) {
		return h, formatErr(t.section, off, "entry length %#x exceeds the section (%#x bytes left)", length, r.remaining())
	}
	h.end = uint64(r.pos) + length
	h.idPos = uint64(r.pos)
	idSize := 4
	if h.is64 {
		idSize = 8
	}
	sub := reader{b: t.data[:h.end], pos: r.pos, order: t.order}
	if h.id, err = sub.uint(idSize); err != nil {
		return h, formatErr(t.section, off, "entry too short for its CIE id")
	}
	h.body = uint64(sub.pos)
	if t.eh {
		h.isCIE = h.id == 0
		if !h.isCIE {
			// .eh_frame: the CIE pointer counts back from the field itself.
			if h.id > h.idPos {
				return h, formatErr(t.section, off, "CIE pointer %#x points before the section", h.id)
			}
			h.cieOffs = h.idPos - h.id
		}
	} else {
		h.isCIE = (!h.is64 && h.id == 0xffffffff) || (h.is64 && h.id == ^uint64(0))
		if !h.isCIE {
			// .debug_frame: the CIE pointer is a section offset.
			h.cieOffs = h.id
		}
	}
	return h, nil
}

// cieAt returns the CIE at off, parsed once and cached.
func (t *Table) cieAt(off uint64) (*CIE, error) {
	if v, ok := t.cies.Load(off); ok {
		c := v.(cieResult)
		return c.cie, c.err
	}
	c, err := t.parseCIE(off)
	t.cies.Store(off, cieResult{c, err})
	return c, err
}

type cieResult struct {
	cie *CIE
	err error
}

func (t *Table) parseCIE(off uint64) (*CIE, error) {
	h, err := t.parseHeader(off)
	if err != nil {
		return nil, err
	}
	if h.zero || !h.isCIE {
		return nil, formatErr(t.section, off, "expected a CIE")
	}
	c := &CIE{
		Offset:       off,
		section:      t.section,
		order:        t.order,
		ptrSize:      t.ptrSize,
		is64:         h.is64,
		AddrSize:     uint8(t.ptrSize),
		LSDAEncoding: PEOmit,
		FDEEncoding:  PEAbsPtr,
	}
	r := reader{b: t.data[:h.end], pos: int(h.body), order: t.order}
	bad := func(msg string) (*CIE, error) {
		return nil, formatErr(t.section, uint64(r.pos), "CIE at %#x: %s", off, msg)
	}
	if c.Version, err = r.u8(); err != nil {
		return bad("truncated version")
	}
	switch c.Version {
	case 1, 3:
	case 4:
		if t.eh {
			return bad("CIE version 4 in .eh_frame")
		}
	default:
		return bad("unsupported CIE version " + itoa(uint64(c.Version)))
	}
	if c.Augmentation, err = r.cstring(); err != nil {
		return bad("unterminated augmentation string")
	}
	if strings.HasPrefix(c.Augmentation, "eh") {
		// Old g++ (before 3.0): a pointer to the exception table follows.
		if err := r.skip(uint64(t.ptrSize)); err != nil {
			return bad("truncated eh pointer")
		}
	}
	if c.Version == 4 {
		if c.AddrSize, err = r.u8(); err != nil {
			return bad("truncated address_size")
		}
		if c.SegmentSize, err = r.u8(); err != nil {
			return bad("truncated segment_size")
		}
		switch c.AddrSize {
		case 1, 2, 4, 8:
		default:
			return bad("unsupported address_size " + itoa(uint64(c.AddrSize)))
		}
		if c.SegmentSize > 8 {
			return bad("unsupported segment_size " + itoa(uint64(c.SegmentSize)))
		}
	}
	if c.CodeAlign, err = r.uleb(); err != nil {
		return bad("bad code_alignment_factor")
	}
	if c.DataAlign, err = r.sleb(); err != nil {
		return bad("bad data_alignment_factor")
	}
	if c.Version == 1 {
		v, err := r.u8()
		if err != nil {
			return bad("truncated return_address_register")
		}
		c.RAColumn = uint64(v)
	} else if c.RAColumn, err = r.uleb(); err != nil {
		return bad("bad return_address_register")
	}
	if err := t.parseAugmentation(c, &r); err != nil {
		return nil, formatErr(t.section, uint64(r.pos), "CIE at %#x: %v", off, err)
	}
	c.Initial = t.data[r.pos:h.end:h.end]
	c.initAddr = t.addr + uint64(r.pos)
	c.initial, c.initErr = runInitial(c)
	return c, nil
}

// parseAugmentation decodes the augmentation data that the augmentation
// string announces.
func (t *Table) parseAugmentation(c *CIE, r *reader) error {
	aug := c.Augmentation
	if aug == "" || aug == "eh" {
		return nil
	}
	if aug[0] != 'z' {
		return errorf("unsupported augmentation %q", aug)
	}
	n, err := r.uleb()
	if err != nil {
		return errorf("bad augmentation data length")
	}
	data, err := r.bytes(n)
	if err != nil {
		return errorf("augmentation data length %#x exceeds the entry", n)
	}
	start := r.pos - len(data)
	ar := reader{b: r.b[:r.pos], pos: start, order: r.order}
	bases := ptrBases{pc: t.addr}
	for i := 1; i < len(aug); i++ {
		switch aug[i] {
		case 'L':
			if c.LSDAEncoding, err = ar.u8(); err != nil {
				return errorf("truncated LSDA encoding")
			}
		case 'R':
			if c.FDEEncoding, err = ar.u8(); err != nil {
				return errorf("truncated FDE encoding")
			}
		case 'P':
			if c.PersonalityEncoding, err = ar.u8(); err != nil {
				return errorf("truncated personality encoding")
			}
			if c.Personality, err = readEncoded(&ar, c.PersonalityEncoding, t.ptrSize, bases); err != nil {
				return errorf("personality pointer: %v", err)
			}
		case 'S':
			c.Signal = true
		case 'B':
			c.BTI = true
		case 'G':
			// AArch64 MTE tagged frames: nothing to decode.
		default:
			// An unknown letter: its data cannot be decoded, but 'z'
			// told us the total length, so the rest is skipped.
			return nil
		}
	}
	return nil
}

// fdeAt parses the FDE whose length field is at off.
func (t *Table) fdeAt(off uint64) (*FDE, error) {
	if f, ok := t.fdes.Load(off); ok {
		return f.(*FDE), nil
	}
	f, err := t.parseFDEAt(off)
	if err != nil {
		return nil, err
	}
	f.rows = &rowMemo{}
	if prev, loaded := t.fdes.LoadOrStore(off, f); loaded {
		return prev.(*FDE), nil
	}
	return f, nil
}

func (t *Table) parseFDEAt(off uint64) (*FDE, error) {
	h, err := t.parseHeader(off)
	if err != nil {
		return nil, err
	}
	if h.zero {
		return nil, formatErr(t.section, off, "expected an FDE, found a zero terminator")
	}
	if h.isCIE {
		return nil, formatErr(t.section, off, "expected an FDE, found a CIE")
	}
	return t.parseFDE(h)
}

func (t *Table) parseFDE(h entryHeader) (*FDE, error) {
	f := new(FDE)
	if err := t.parseFDEInto(h, f); err != nil {
		return nil, err
	}
	return f, nil
}

// parseFDEInto is parseFDE writing into f: the index of a table without
// .eh_frame_hdr decodes every FDE for its range (a Go program's 4,000)
// and keeps none of them.
func (t *Table) parseFDEInto(h entryHeader, f *FDE) error {
	off := h.off
	if h.cieOffs == off {
		return formatErr(t.section, off, "FDE's CIE pointer points to itself")
	}
	cie, err := t.cieAt(h.cieOffs)
	if err != nil {
		return formatErr(t.section, off, "FDE's CIE at %#x: %v", h.cieOffs, err)
	}
	*f = FDE{Offset: off, CIE: cie}
	r := reader{b: t.data[:h.end], pos: int(h.body), order: t.order}
	bad := func(msg string, args ...any) error {
		return formatErr(t.section, uint64(r.pos), "FDE at %#x: "+msg, append([]any{off}, args...)...)
	}
	if cie.SegmentSize > 0 {
		if err := r.skip(uint64(cie.SegmentSize)); err != nil {
			return bad("truncated segment selector")
		}
	}
	bases := ptrBases{pc: t.addr}
	enc := cie.FDEEncoding
	ptrSize := t.ptrSize
	if !t.eh {
		// .debug_frame addresses are plain target addresses.
		enc, ptrSize = PEAbsPtr, int(cie.AddrSize)
	}
	if f.Begin, err = readEncoded(&r, enc, ptrSize, bases); err != nil {
		return bad("initial_location: %v", err)
	}
	// The range has the same format as the address but no base.
	length, err := readEncodedRaw(&r, enc&0x0f, ptrSize)
	if err != nil {
		return bad("address_range: %v", err)
	}
	f.End = f.Begin + length
	if f.End < f.Begin || (t.ptrSize == 4 && f.End > 1<<32) {
		return bad("address range %#x+%#x wraps around", f.Begin, length)
	}
	if strings.HasPrefix(cie.Augmentation, "z") {
		n, err := r.uleb()
		if err != nil {
			return bad("bad augmentation data length")
		}
		data, err := r.bytes(n)
		if err != nil {
			return bad("augmentation data length %#x exceeds the entry", n)
		}
		if cie.LSDAEncoding != PEOmit && len(data) > 0 {
			ar := reader{b: r.b[:r.pos], pos: r.pos - len(data), order: t.order}
			if f.LSDA, err = readEncoded(&ar, cie.LSDAEncoding, t.ptrSize, bases); err != nil {
				return bad("LSDA pointer: %v", err)
			}
		}
	}
	f.Instructions = t.data[r.pos:h.end:h.end]
	f.instrAddr = t.addr + uint64(r.pos)
	return nil
}
