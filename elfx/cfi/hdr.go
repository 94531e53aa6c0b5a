package cfi

import (
	"encoding/binary"
	"fmt"
)

// hdrTable is a parsed .eh_frame_hdr: the version byte, three encodings,
// eh_frame_ptr, fde_count and a table of (initial_location, FDE address)
// pairs sorted by initial_location, as the LSB specifies.
type hdrTable struct {
	data       []byte // the table bytes only
	addr       uint64 // .eh_frame_hdr's address (the datarel base)
	tableOff   uint64 // offset of the table in the section
	order      binary.ByteOrder
	le         bool // order is little-endian: field decodes without calling through the interface
	ptrSize    int
	enc        uint8
	entSize    int // bytes per field; an entry is two fields
	count      uint64
	ehFramePtr uint64
}

// parseHdr decodes the header of an .eh_frame_hdr. It fails when the
// binary-search table is absent or uses a variable-size encoding: the
// caller then indexes the .eh_frame itself.
func parseHdr(b []byte, addr uint64, order binary.ByteOrder, ptrSize int) (*hdrTable, error) {
	r := reader{b: b, order: order}
	bad := func(format string, args ...any) (*hdrTable, error) {
		return nil, formatErr(".eh_frame_hdr", uint64(r.pos), format, args...)
	}
	var hd [4]uint8
	for i := range hd {
		v, err := r.u8()
		if err != nil {
			return bad("truncated header")
		}
		hd[i] = v
	}
	if hd[0] != 1 {
		return nil, formatErr(".eh_frame_hdr", 0, "unsupported version %d", hd[0])
	}
	bases := ptrBases{pc: addr, data: addr, hasData: true}
	ehPtr, err := readEncoded(&r, hd[1], ptrSize, bases)
	if err != nil {
		return bad("eh_frame_ptr: %v", err)
	}
	if hd[2] == PEOmit || hd[3] == PEOmit {
		return bad("no binary search table")
	}
	count, err := readEncoded(&r, hd[2], ptrSize, bases)
	if err != nil {
		return bad("fde_count: %v", err)
	}
	enc := hd[3]
	size := encodedSize(enc, ptrSize)
	if size == 0 || !validEncoding(enc) || enc&PEIndirect != 0 {
		return bad("table encoding %#x is not a fixed-size direct encoding", enc)
	}
	switch enc & 0x70 {
	case PEAbsPtr, PEPCRel, PEDataRel:
	default:
		return bad("table encoding %#x has an unsupported base", enc)
	}
	if count > uint64(r.remaining())/uint64(2*size) {
		return bad("fde_count %d exceeds the %d bytes of table present", count, r.remaining())
	}
	return &hdrTable{
		data: b[r.pos : r.pos+int(count)*2*size], addr: addr, tableOff: uint64(r.pos),
		order: order, le: order == binary.LittleEndian, ptrSize: ptrSize, enc: enc, entSize: size, count: count, ehFramePtr: ehPtr,
	}, nil
}

// field decodes field k (0 = initial_location, 1 = FDE address) of entry i.
// Bounds were checked by parseHdr.
func (h *hdrTable) field(i uint64, k int) uint64 {
	pos := (int(i)*2 + k) * h.entSize
	b := h.data[pos : pos+h.entSize]
	var v uint64
	switch h.entSize {
	case 2:
		if h.le {
			v = uint64(binary.LittleEndian.Uint16(b))
		} else {
			v = uint64(h.order.Uint16(b))
		}
		if h.enc&0x08 != 0 {
			v = uint64(int64(int16(v)))
		}
	case 4:
		if h.le {
			v = uint64(binary.LittleEndian.Uint32(b))
		} else {
			v = uint64(h.order.Uint32(b))
		}
		if h.enc&0x08 != 0 {
			v = uint64(int64(int32(v)))
		}
	default:
		if h.le {
			v = binary.LittleEndian.Uint64(b)
		} else {
			v = h.order.Uint64(b)
		}
	}
	switch h.enc & 0x70 {
	case PEDataRel:
		v += h.addr
	case PEPCRel:
		v += h.addr + h.tableOff + uint64(pos)
	}
	return truncPtr(v, h.ptrSize)
}

// validate checks once that the table is sorted and that every FDE address
// falls inside the .eh_frame, so lookups can trust it.
func (h *hdrTable) validate(ehSize, ehAddr uint64) error {
	if h.le && h.enc == PEDataRel|PESData4 && h.entSize == 4 {
		return h.validateDataRel4(ehSize, ehAddr)
	}
	var prev uint64
	for i := uint64(0); i < h.count; i++ {
		loc, fde := h.field(i, 0), h.field(i, 1)
		if i > 0 && loc < prev {
			return h.unsorted(i)
		}
		prev = loc
		if fde < ehAddr || fde-ehAddr >= ehSize {
			return h.outside(i)
		}
	}
	return nil
}

// validateDataRel4 is validate for gcc's and the linkers' encoding,
// little-endian signed 4-byte offsets from the header, decoded inline
// with everything the loop needs in locals: it runs over every entry
// (76,000 in node's executable), where field's switches cost ten times
// more.
func (h *hdrTable) validateDataRel4(ehSize, ehAddr uint64) error {
	mask := ^uint64(0)
	if h.ptrSize == 4 {
		mask = 0xffffffff
	}
	base := h.addr
	data := h.data[:h.count*8]
	var prev uint64
	for i := 0; i+8 <= len(data); i += 8 {
		e := data[i : i+8 : i+8]
		loc := (uint64(int64(int32(binary.LittleEndian.Uint32(e)))) + base) & mask
		fde := (uint64(int64(int32(binary.LittleEndian.Uint32(e[4:])))) + base) & mask
		if loc < prev {
			return h.unsorted(uint64(i / 8))
		}
		prev = loc
		if fde < ehAddr || fde-ehAddr >= ehSize {
			return h.outside(uint64(i / 8))
		}
	}
	return nil
}

func (h *hdrTable) unsorted(i uint64) error {
	return formatErr(".eh_frame_hdr", h.tableOff+i*uint64(2*h.entSize), "table not sorted at entry %d", i)
}

func (h *hdrTable) outside(i uint64) error {
	return formatErr(".eh_frame_hdr", h.tableOff+i*uint64(2*h.entSize), "entry %d points outside .eh_frame", i)
}

// lookup returns the .eh_frame offset of the FDE of the last entry whose
// initial_location is <= pc.
func (h *hdrTable) lookup(pc, ehAddr uint64) (uint64, bool) {
	lo, hi := uint64(0), h.count // find the first entry with loc > pc
	for lo < hi {
		mid := lo + (hi-lo)/2
		if h.field(mid, 0) > pc {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo == 0 {
		return 0, false
	}
	return h.field(lo-1, 1) - ehAddr, true
}

// String describes the header for diagnostics.
func (h *hdrTable) String() string {
	return fmt.Sprintf(".eh_frame_hdr@%#x: %d entries, encoding %#x", h.addr, h.count, h.enc)
}
